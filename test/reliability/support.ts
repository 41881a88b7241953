/**
 * Shared plumbing of the reliability tests (temp directories are `useTempDir()` of
 * `test/helpers/temp-store.ts`): file checksums, child-process workers and
 * the knob for the long variants.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'

export { LONG } from '../helpers/runs.js'

/** The folder holding the child-process worker scripts. */
export const WORKERS = join(dirname(fileURLToPath(import.meta.url)), 'workers')

const ROOT = join(WORKERS, '..', '..', '..')

/**
 * sha256 of a file's bytes, or `'absent'`.
 *
 * @param path - the file
 * @returns hex digest
 */
export function fileHash(path: string): string {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent'
}

/** The part of esbuild's API the launcher uses. */
interface Bundler {
  build(options: {
    entryPoints: string[]
    outdir: string
    bundle: boolean
    platform: 'node'
    format: 'esm'
    packages: 'external'
    outExtension: Record<string, string>
    logLevel: 'error'
  }): Promise<unknown>
}

/** Whom a worker runs as: an unprivileged user, for tests of file permissions that root would ignore. */
export interface WorkerUser {
  /** User id. */
  readonly uid: number
  /** Group id. */
  readonly gid: number
}

/** Starts a worker script as a child process: `node <worker> ...args`, stdio piped, optionally as `user`. */
export type WorkerLauncher = (args: readonly string[], user?: WorkerUser) => ChildProcess

/**
 * Registers hooks that make `name` (a file in `workers/`, without `.ts`) startable as a child process.
 * Tests spawn workers dozens of times, so the worker is bundled once with esbuild (present through tsx
 * and vite) into `.tmp/` at the repository root — two levels deep, so `src/db/open.ts` still finds
 * `migrations/` from its `import.meta.url` — and each start costs a plain Node boot instead of loading
 * the TypeScript loader. Without esbuild the worker runs under `node --import tsx`.
 *
 * @param name - the worker's file name without extension
 * @returns a launcher, valid inside tests
 */
export function useWorker(name: string): WorkerLauncher {
  const outdir = join(ROOT, '.tmp', `reliability-${name}-${process.pid}`)
  let command: string[] | undefined
  beforeAll(async () => {
    const specifier = 'esbuild'
    const esbuild = (await import(specifier).catch(() => undefined)) as Bundler | undefined
    if (esbuild === undefined) {
      command = ['--import', 'tsx', join(WORKERS, `${name}.ts`)]
      return
    }
    mkdirSync(outdir, { recursive: true })
    await esbuild.build({
      entryPoints: [join(WORKERS, `${name}.ts`)],
      outdir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outExtension: { '.js': '.mjs' },
      logLevel: 'error',
    })
    command = [join(outdir, `${name}.mjs`)]
  })
  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true })
  })
  return (args, user) => {
    if (command === undefined) throw new Error(`worker ${name} is not built yet`)
    return spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...user,
    })
  }
}

/** A finished child process: how it ended and every stdout line it printed. */
export interface WorkerExit {
  /** Exit code, or null when killed by a signal. */
  readonly code: number | null
  /** The signal that killed it, if any. */
  readonly signal: NodeJS.Signals | null
  /** Complete stdout lines, in order. */
  readonly lines: string[]
  /** Everything on stderr. */
  readonly stderr: string
}

/**
 * Collects a child's output and resolves once it has exited and its pipes are drained.
 *
 * @param child - a child started with piped stdout and stderr
 * @param onLine - called for each complete stdout line as it arrives
 * @returns how it ended and what it printed
 */
export function collect(child: ChildProcess, onLine: (line: string) => void = () => {}): Promise<WorkerExit> {
  const lines: string[] = []
  let partial = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop() ?? ''
    for (const line of parts) {
      lines.push(line)
      onLine(line)
    }
  })
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      resolve({ code, signal, lines, stderr })
    })
  })
}

/** Workers' "ready" lines counted: see {@link readyLatch}. */
export interface ReadyLatch {
  /** One more worker is ready. */
  readonly arrive: () => void
  /** How many are. */
  readonly arrived: () => number
  /** Resolves once `count` are. */
  readonly all: Promise<void>
}

/**
 * Counts the workers that said they are ready (opened, waiting for `go`), so a test starts them together.
 *
 * @param count - how many workers there are
 * @returns the latch
 */
export function readyLatch(count: number): ReadyLatch {
  let arrived = 0
  let open: () => void = () => {}
  const all = new Promise<void>((resolve) => {
    open = resolve
  })
  return {
    arrive: () => {
      if (++arrived === count) open()
    },
    arrived: () => arrived,
    all,
  }
}
