/**
 * The end-to-end runs of the Claude Agent SDK store, written once for both backends (the SQLite file of
 * claude-agent-e2e.test.ts and the PostgreSQL database of test/postgres/claude-agent-e2e.test.ts):
 *
 * - {@link resumeAcrossProcesses}: the real CLI runs a `query()` with a tool call here, on
 *   `LedgerSessionStore`; a second process (workers/claude-agent-resume.ts, TypeScript from src/ through
 *   tsx) resumes it with a fresh `CLAUDE_CONFIG_DIR` and then `/compact`s it; what each process's CLI
 *   handed the store is recorded, to compare with what the ledger gives back;
 * - {@link twoWriters}: two processes (workers/claude-agent-appender.ts) appending to one session at once.
 */
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { calcModel } from '../helpers/claude-model.js'
import { RecordingSessionStore, type RecordedAppend } from '../helpers/claude-recording-store.js'
import { runOptions, runQuery } from '../helpers/claude-run.js'
import { startStandIn, type RecordedRequest } from '../helpers/claude-stand-in.js'
import { openSessions, type AppenderArgs, type ResumeArgs } from '../helpers/claude-ledger.js'
import { collect, readyLatch, type WorkerExit } from './support.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const WORKERS = join(ROOT, 'test', 'reliability', 'workers')

/**
 * Starts a worker of workers/ under tsx: TypeScript importing src/ as it is (never the built dist).
 *
 * @param name - the worker's file name without `.ts`
 * @param args - its one argument, as JSON
 * @returns the child, stdio piped
 */
export function launchTsx(name: string, args: unknown): ReturnType<typeof spawn> {
  return spawn(process.execPath, ['--import', 'tsx', join(WORKERS, `${name}.ts`), JSON.stringify(args)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

/** The lines a worker printed with `tag`, without it. */
export const tagged = (exit: WorkerExit, tag: string): string[] =>
  exit.lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1))

/** What {@link resumeAcrossProcesses} saw. */
export interface ResumeRun {
  /** The main key. */
  readonly key: SessionKey
  /** Every batch the CLI handed a store, this process's first, then the worker's. */
  readonly appends: readonly RecordedAppend[]
  /** The Messages requests the stand-in answered, both processes'. */
  readonly requests: readonly RecordedRequest[]
  /** How many of them the first process made. */
  readonly firstRequests: number
  /** The worker's exit. */
  readonly worker: WorkerExit
}

/**
 * A real `query()` with a tool call here, then a second process resuming the session for `prompts`.
 *
 * @param location - the ledger
 * @param cli - the CLI binary
 * @param dir - a scratch folder
 * @returns what both processes handed the store, and the model requests
 */
export async function resumeAcrossProcesses(
  location: string,
  cli: string,
  dir: string,
  prompts: readonly string[],
): Promise<ResumeRun> {
  const standIn = await startStandIn(calcModel())
  const cwd = join(dir, 'project')
  mkdirSync(cwd, { recursive: true })
  const { ledger, sessions } = await openSessions(location)
  try {
    const recording = new RecordingSessionStore(sessions)
    const setup = { cli, url: standIn.url, cwd, sessionStore: recording, scratch: dir }
    const { sessionId } = await runQuery('What is 4000 + 17? Use the add tool.', runOptions(setup))
    const firstRequests = standIn.requests.length
    const args: ResumeArgs = { location, cli, url: standIn.url, cwd, scratch: dir, sessionId, prompts }
    const worker = await collect(launchTsx('claude-agent-resume', args))
    const theirs = tagged(worker, 'append').map((l) => JSON.parse(l) as RecordedAppend)
    const main = recording.appends.find((a) => a.key.subpath === undefined)?.key
    if (main === undefined) throw new Error('the first query appended no main transcript')
    return {
      key: main,
      appends: [...recording.appends, ...theirs],
      requests: standIn.requests,
      firstRequests,
      worker,
    }
  } finally {
    await ledger.close()
    await standIn.close()
  }
}

/**
 * Two appender processes on one session, started together once both are ready.
 *
 * @param a - the first's arguments
 * @param b - the second's
 * @returns both exits
 */
export async function twoWriters(a: AppenderArgs, b: AppenderArgs): Promise<[WorkerExit, WorkerExit]> {
  const latch = readyLatch(2)
  const children = [a, b].map((args) => launchTsx('claude-agent-appender', args))
  const exits = children.map((child) =>
    collect(child, (line) => {
      if (line === 'ready') latch.arrive()
    }),
  )
  await Promise.race([latch.all, Promise.all(exits)])
  for (const child of children) child.stdin?.end('go\n')
  const [ea, eb] = await Promise.all(exits)
  return [ea as WorkerExit, eb as WorkerExit]
}

/** The entries a transcript's batches add up to: what `load` must return. */
export function concatenated(appends: readonly RecordedAppend[], key: SessionKey): SessionStoreEntry[] {
  const same = (k: SessionKey) =>
    k.projectKey === key.projectKey && k.sessionId === key.sessionId && k.subpath === key.subpath
  return appends.filter((x) => same(x.key)).flatMap((x) => x.entries)
}

/**
 * Two appender workers' arguments on one session: 30 batches of 6–29 entries each (at least one with a
 * `uuid` in every batch), every fifth one re-sent.
 *
 * @param location - the ledger
 * @returns both
 */
export function writers(location: string): AppenderArgs[] {
  const key = { projectKey: '-srv-two-writers', sessionId: '7e1f0c2a-5b1d-4c3e-9f00-0000000000aa' }
  return [1, 2].map((tag) => {
    const sizes = Array.from({ length: 30 }, (_, i) => 6 + ((i * 7 + tag * 5) % 24))
    return { location, key, tag, sizes, resend: sizes.map((_, i) => i).filter((i) => i % 5 === tag) }
  })
}
