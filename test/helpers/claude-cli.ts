/**
 * The real Claude Code CLI for the end-to-end tests. The repository overrides the SDK's native CLI
 * packages with an empty stand-in (package.json `overrides`) so `npm ci` stays ~400 MB lighter; this
 * helper fetches the one package this platform needs — `@anthropic-ai/claude-agent-sdk-<platform>-<arch>
 * [-musl]` at the installed SDK's exact version — with `npm pack` into a scratch folder, extracts it, and
 * caches the binary under `os.tmpdir()` by version, so only the first test run pays for the download.
 *
 * Two test files (or two vitest runs) asking at once: the first takes a lock (an atomic `mkdir`, with the
 * owner's pid inside so a killed owner's lock is taken over), the others wait for it; the binary is moved
 * into place by one `rename` of a fully extracted folder, so a reader never sees half a binary.
 * `CONTEXT_LEDGER_CLAUDE_CLI=/path/to/claude` skips all of it and uses that binary.
 */
import { execFile } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** How long a waiter waits for another process's install before giving up. */
const WAIT_MS = 15 * 60_000

/** The SDK package whose native CLI this installs. */
const SDK = '@anthropic-ai/claude-agent-sdk'

/** The installed SDK's package.json. */
function sdkPackage(): { version?: unknown; claudeCodeVersion?: unknown } {
  const entry = createRequire(import.meta.url).resolve(SDK)
  return JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as {
    version?: unknown
    claudeCodeVersion?: unknown
  }
}

/** The installed SDK's version (its package.json), which the native CLI package must match exactly. */
export function sdkVersion(): string {
  const { version } = sdkPackage()
  if (typeof version !== 'string') throw new Error(`${SDK}'s package.json has no version`)
  return version
}

/** The Claude Code version the installed SDK's CLI is (its package.json's `claudeCodeVersion`), or `''`. */
export function claudeCodeVersion(): string {
  const { claudeCodeVersion: v } = sdkPackage()
  return typeof v === 'string' ? v : ''
}

/** True on a Linux whose C library is musl (no glibc version in the process report), as the SDK decides. */
function isMusl(): boolean {
  if (process.platform !== 'linux') return false
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } }
  return report.header?.glibcVersionRuntime === undefined
}

/** The native CLI package for this platform, e.g. `@anthropic-ai/claude-agent-sdk-linux-x64`. */
export function cliPackageName(): string {
  return `${SDK}-${process.platform}-${process.arch}${isMusl() ? '-musl' : ''}`
}

/** The binary's file name inside the package. */
const binaryName = (): string => (process.platform === 'win32' ? 'claude.exe' : 'claude')

/** Whether the process with this pid is alive (signal 0 probes without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes the install lock: an atomic `mkdir`, with the owner's pid written inside. A lock whose owner is
 * dead (killed mid-download) is removed and taken.
 *
 * @returns a function releasing it
 */
async function lock(path: string): Promise<() => void> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    try {
      mkdirSync(path)
      writeFileSync(join(path, 'pid'), String(process.pid))
      return () => {
        rmSync(path, { recursive: true, force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = Number(readFileOr(join(path, 'pid')))
    // No pid yet: the owner is between its mkdir and its write; wait for it like for a live owner.
    if (Number.isSafeInteger(owner) && owner > 0 && !alive(owner)) {
      rmSync(path, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the Claude CLI install lock ${path}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

function readFileOr(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** `npm pack <spec>` into `dir`, then the tarball extracted there: returns the extracted `package/`. */
async function packAndExtract(spec: string, dir: string): Promise<string> {
  const shell = process.platform === 'win32'
  const { stdout } = await run('npm', ['pack', spec, '--pack-destination', dir, '--json', '--silent'], {
    cwd: dir,
    shell,
    maxBuffer: 16 * 1024 * 1024,
  })
  const [packed] = JSON.parse(stdout) as { filename: string }[]
  if (packed === undefined) throw new Error(`npm pack ${spec} printed no file`)
  const tarball = join(dir, packed.filename)
  await run('tar', ['-xzf', tarball, '-C', dir])
  rmSync(tarball, { force: true })
  return join(dir, 'package')
}

/**
 * The path of the real Claude Code binary matching the installed SDK, installed on first use (~190 MB
 * download, ~400 MB on disk, once per version and machine). Pass it as `pathToClaudeCodeExecutable`.
 *
 * @returns the binary's absolute path
 */
export async function claudeCli(): Promise<string> {
  const override = process.env.CONTEXT_LEDGER_CLAUDE_CLI
  if (override !== undefined && override !== '') return override
  const version = sdkVersion()
  const name = cliPackageName()
  const root = join(tmpdir(), 'context-ledger-claude-cli')
  const base = `${name.replace('@anthropic-ai/', '')}-${version}`
  const final = join(root, base)
  const binary = join(final, binaryName())
  if (existsSync(binary)) return binary
  mkdirSync(root, { recursive: true })
  const release = await lock(join(root, `${base}.lock`))
  try {
    if (existsSync(binary)) return binary
    // Only the lock's holder makes a work folder: one still here is a killed install's (~400 MB).
    for (const entry of readdirSync(root))
      if (entry.startsWith(`${base}.work-`)) rmSync(join(root, entry), { recursive: true, force: true })
    const work = mkdtempSync(join(root, `${base}.work-`))
    try {
      const extracted = await packAndExtract(`${name}@${version}`, work)
      if (!existsSync(join(extracted, binaryName())))
        throw new Error(`${name}@${version} holds no ${binaryName()}`)
      // One rename of the whole folder: whoever sees `final` sees a complete binary.
      renameSync(extracted, final)
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
    return binary
  } finally {
    release()
  }
}
