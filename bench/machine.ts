/**
 * Facts about the machine and the process that the bench reports print beside their figures.
 */
import { existsSync, readFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import Database from 'better-sqlite3'

/**
 * The CPU, memory and versions the figures were measured with.
 *
 * @returns e.g. `2 CPUs (AMD EPYC 7B13), 8 GiB RAM, Node v22.1.0, better-sqlite3 12.4.1, SQLite 3.50.4`
 */
export function machine(): string {
  let model = cpus()[0]?.model ?? 'unknown CPU'
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'))
    model = line?.split(':')[1]?.trim() ?? model
  } catch {
    // not Linux: keep os.cpus()
  }
  const mem = new Database(':memory:')
  const sqlite = mem.prepare('SELECT sqlite_version()').pluck().get() as string
  mem.close()
  const pkg = new URL('../node_modules/better-sqlite3/package.json', import.meta.url)
  const bsq = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version
  const ram = (totalmem() / 2 ** 30).toFixed(0)
  return `${cpus().length} CPUs (${model}), ${ram} GiB RAM, Node ${process.version}, better-sqlite3 ${bsq}, SQLite ${sqlite}`
}

/**
 * Bytes this process has written so far (`wchar` of /proc/self/io): page cache, WAL and all.
 *
 * @returns the count, or undefined where /proc is missing
 */
export function wchar(): number | undefined {
  if (!existsSync('/proc/self/io')) return undefined
  const line = readFileSync('/proc/self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('wchar:'))
  return line === undefined ? undefined : Number(line.slice(6).trim())
}
