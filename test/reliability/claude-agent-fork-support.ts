/**
 * The end-to-end runs of forks on the Claude Agent SDK store, written once for both backends (the SQLite
 * file of claude-agent-fork-e2e.test.ts and the PostgreSQL database of
 * test/postgres/claude-agent-fork-e2e.test.ts): the real CLI against the scripted Messages API.
 *
 * - {@link forkResumedElsewhere}: `forkSession` of `context-ledger/claude-agent-sdk` forks a two-turn
 *   session after its first answer; a second process (workers/claude-agent-resume.ts) resumes the fork
 *   from the ledger with a new prompt. Its CLI sends the model the first turn and the new prompt —
 *   exactly what it sends resuming the SDK's own fork on `InMemorySessionStore` — never the second turn;
 *   the ledger stores the new turn only, and `load` gives the fork, then what that CLI handed the store.
 * - {@link resumedWithFork}: `query()` resuming with `forkSession: true` (all of the session, or up to
 *   `resumeSessionAt`): the CLI's copy is made a ledger fork — the new session's own rows are what the
 *   CLI wrote besides its copy, and `load` gives every entry the CLI handed the store, exactly.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import {
  forkSession as sdkForkSession,
  InMemorySessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { forkSession, projectKeyOf } from '../../src/adapters/claude-agent-sdk/index.js'
import { openSessions, type OpenedSessions, type ResumeArgs } from '../helpers/claude-ledger.js'
import { calcModel } from '../helpers/claude-model.js'
import { RecordingSessionStore, type RecordedAppend } from '../helpers/claude-recording-store.js'
import { runOptions, runQuery } from '../helpers/claude-run.js'
import { startStandIn, type StandIn } from '../helpers/claude-stand-in.js'
import { expectClean } from './claude-agent-checks.js'
import { concatenated, launchTsx, tagged } from './claude-agent-support.js'
import { collect } from './support.js'

const FIRST = 'What is 4000 + 17? Use the add tool.'
const SECOND = 'And what is 250 + 5?'
const FORKED = 'Now what is 7 + 8?'

/** A two-turn session; returns its id. */
async function twoTurns(setup: Parameters<typeof runOptions>[0]): Promise<string> {
  const { sessionId } = await runQuery(FIRST, runOptions(setup))
  await runQuery(SECOND, runOptions(setup, { resume: sessionId }))
  return sessionId
}

/** The uuid of the first answer, `Results: 4017.`. */
const firstAnswer = (entries: readonly SessionStoreEntry[]): string =>
  entries.find((e) => e.type === 'assistant' && JSON.stringify(e.message).includes('Results: 4017.'))?.uuid ??
  ''

/** The uuid of the first turn's assistant entry that calls the add tool (answered in the parent). */
const firstCall = (entries: readonly SessionStoreEntry[]): string =>
  entries.find((e) => e.type === 'assistant' && JSON.stringify(e.message).includes('"tool_use"'))?.uuid ?? ''

/** The entries the CLI wrote before its copy (kept in the fork's sidecar, not as rows). */
const headOf = (entries: readonly SessionStoreEntry[]): number =>
  entries.findIndex((e) => e.uuid !== undefined)

/**
 * The ledger's message rows, every session's, from its sessions as the API lists them: a root holds its
 * messages, a branch those after its fork point.
 */
async function messageRows(opened: OpenedSessions): Promise<number> {
  const sessions = await opened.ledger.sessions()
  return sessions.reduce((n, s) => n + s.messageCount - (s.forkSeq === null ? 0 : s.forkSeq + 1), 0)
}

/** The messages of the model request at index `from`. */
const sentAt = (standIn: StandIn, from: number): string =>
  JSON.stringify(standIn.requests[from]?.body.messages)

/** Where a run happens. */
export interface ForkRunPlace {
  /** The ledger (a SQLite file or a PostgreSQL connection string), empty. */
  readonly location: string
  /** The CLI binary. */
  readonly cli: string
  /** A scratch folder of the run's own. */
  readonly dir: string
}

/**
 * `forkSession` on the ledger, the fork resumed by the CLI of a second process, against the SDK's fork.
 *
 * @param place - the ledger, the CLI, a folder
 * @param at - fork after the first answer, or at the first turn's tool call (its result left out: the
 *   fork ends with a call open, which the resuming CLI must deal with as it does on the SDK's fork)
 */
export async function forkResumedElsewhere(
  { location, cli, dir }: ForkRunPlace,
  at: 'answer' | 'call' = 'answer',
): Promise<void> {
  const standIn = await startStandIn(calcModel())
  const cwd = join(dir, 'project')
  mkdirSync(cwd, { recursive: true })
  let opened: OpenedSessions | undefined = await openSessions(location)
  try {
    const setup = { cli, url: standIn.url, cwd, sessionStore: opened.sessions, scratch: dir }
    const sessionId = await twoTurns(setup)
    const parentKey = { projectKey: projectKeyOf(cwd), sessionId }
    const parent = (await opened.sessions.load(parentKey)) ?? []
    const upToMessageId = at === 'answer' ? firstAnswer(parent) : firstCall(parent)
    expect(upToMessageId).not.toBe('')
    const rows = await messageRows(opened)
    const fork = await forkSession(sessionId, { upToMessageId, dir: cwd, sessionStore: opened.sessions })
    expect(await messageRows(opened)).toBe(rows)
    const forkKey = { projectKey: parentKey.projectKey, sessionId: fork.sessionId }
    const atFork = (await opened.sessions.load(forkKey)) ?? []

    // The SDK's own fork of the same session on its in-memory store, resumed in this process.
    const oracle = new InMemorySessionStore()
    await oracle.append(parentKey, parent)
    const theirs = await sdkForkSession(sessionId, { upToMessageId, dir: cwd, sessionStore: oracle })
    const oracleFrom = standIn.requests.length
    await runQuery(FORKED, runOptions({ ...setup, sessionStore: oracle }, { resume: theirs.sessionId }))

    // Ours, resumed by a second process from the ledger.
    const ourFrom = standIn.requests.length
    await opened.ledger.close()
    opened = undefined
    const args: ResumeArgs = {
      location,
      cli,
      url: standIn.url,
      cwd,
      scratch: dir,
      sessionId: fork.sessionId,
      prompts: [FORKED],
    }
    const worker = await collect(launchTsx('claude-agent-resume', args))
    expectClean(worker)
    expect([...new Set(tagged(worker, 'session'))]).toStrictEqual([fork.sessionId])
    const sent = sentAt(standIn, ourFrom)
    expect(sent).toContain('4000 + 17')
    expect(sent.includes('4017')).toBe(at === 'answer')
    expect(sent).toContain('7 + 8')
    expect(sent).not.toContain('250 + 5')
    expect(sent).toBe(sentAt(standIn, oracleFrom))

    const appends = tagged(worker, 'append').map((l) => JSON.parse(l) as RecordedAppend)
    const theirAppends = concatenated(appends, forkKey)
    expect(theirAppends.length).toBeGreaterThan(3)
    opened = await openSessions(location)
    expect(await opened.sessions.load(forkKey)).toStrictEqual([...atFork, ...theirAppends])
    // The fork holds the rows of its own turn; everything before them it shares.
    expect(await messageRows(opened)).toBe(rows + theirAppends.length)
    expect(await opened.sessions.load(parentKey)).toStrictEqual(parent)
  } finally {
    await opened?.ledger.close()
    await standIn.close()
  }
}

/**
 * `query()` resuming with `forkSession: true`, made a ledger fork.
 *
 * @param place - the ledger, the CLI, a folder
 * @param at - with `resumeSessionAt` (the first answer), or the whole session
 */
export async function resumedWithFork({ location, cli, dir }: ForkRunPlace, at: boolean): Promise<void> {
  const standIn = await startStandIn(calcModel())
  const cwd = join(dir, 'project')
  mkdirSync(cwd, { recursive: true })
  const opened = await openSessions(location)
  try {
    const recording = new RecordingSessionStore(opened.sessions)
    const setup = { cli, url: standIn.url, cwd, sessionStore: recording, scratch: dir }
    const sessionId = await twoTurns(setup)
    const parentKey = { projectKey: projectKeyOf(cwd), sessionId }
    const parent = (await opened.sessions.load(parentKey)) ?? []
    const from = recording.appends.length
    const rows = await messageRows(opened)
    const extra = at ? { resumeSessionAt: firstAnswer(parent) } : {}
    const requestsFrom = standIn.requests.length
    const run = await runQuery(FORKED, runOptions(setup, { resume: sessionId, forkSession: true, ...extra }))
    expect(run.sessionId).not.toBe(sessionId)
    const key = { projectKey: parentKey.projectKey, sessionId: run.sessionId }
    const written = concatenated(recording.appends.slice(from), key)
    expect(await opened.sessions.load(key)).toStrictEqual(written)
    const session = await opened.ledger.session(opened.sessions.sessionIdOf(key))
    expect(session?.parentId).toBe(opened.sessions.sessionIdOf(parentKey))
    // Its own rows: what the CLI wrote besides its copy of the parent's entries.
    const inParent = new Set(parent.map((e) => e.uuid).filter((u) => u !== undefined))
    const copied = written.filter((e) => e.uuid !== undefined && inParent.has(e.uuid)).length
    expect(copied).toBeGreaterThan(5)
    expect(await messageRows(opened)).toBe(rows + written.length - copied - headOf(written))
    // The CLI sent the model the parent's turns up to the fork point, then the new prompt.
    const sent = sentAt(standIn, requestsFrom)
    expect(sent).toContain('4017')
    expect(sent).toContain('7 + 8')
    expect(sent.includes('250 + 5')).toBe(!at)
  } finally {
    await opened.ledger.close()
    await standIn.close()
  }
}
