/**
 * Forks end to end, on a SQLite file: the real Claude Code CLI (test/helpers/claude-cli.ts) against the
 * scripted Messages API, on `LedgerSessionStore`.
 *
 * - `forkSession` of `context-ledger/claude-agent-sdk` forks a two-turn session after its first answer;
 *   a second process (workers/claude-agent-resume.ts) resumes the fork from the ledger with a new prompt.
 *   Its CLI sends the model the first turn and the new prompt — exactly what it sends resuming the SDK's
 *   own fork of the same session on `InMemorySessionStore` — and never the second turn; the ledger stores
 *   the new turn only, and `load` gives the fork, then exactly what that CLI handed the store.
 * - `query()` resuming with `forkSession: true` (all of the session, or up to `resumeSessionAt`): the
 *   CLI's copy is recognised and made a ledger fork — the new session's own rows are what the CLI wrote
 *   besides the copy, and `load` gives every entry the CLI handed the store, exactly.
 */
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  forkSession as sdkForkSession,
  InMemorySessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { forkSession, projectKeyOf } from '../../src/adapters/claude-agent-sdk/index.js'
import { claudeCli } from '../helpers/claude-cli.js'
import { openSessions, type OpenedSessions, type ResumeArgs } from '../helpers/claude-ledger.js'
import { sqliteOf } from '../helpers/ledger-open.js'
import { calcModel } from '../helpers/claude-model.js'
import { RecordingSessionStore, type RecordedAppend } from '../helpers/claude-recording-store.js'
import { runOptions, runQuery } from '../helpers/claude-run.js'
import { standInEnv, startStandIn, type StandIn } from '../helpers/claude-stand-in.js'
import { useTempDir } from '../helpers/temp-store.js'
import { expectClean } from './claude-agent-checks.js'
import { concatenated, launchTsx, tagged } from './claude-agent-support.js'
import { collect } from './support.js'

const dir = useTempDir('context-ledger-claude-fork-e2e-')
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)

const FIRST = 'What is 4000 + 17? Use the add tool.'
const SECOND = 'And what is 250 + 5?'
const FORKED = 'Now what is 7 + 8?'

/** A two-turn session on `store`; returns its id and key. */
async function twoTurns(setup: Parameters<typeof runOptions>[0]) {
  const { sessionId } = await runQuery(FIRST, runOptions(setup))
  await runQuery(SECOND, runOptions(setup, { resume: sessionId }))
  return sessionId
}

/** The uuid of the first answer that says `Results: 4017.`. */
const firstAnswer = (entries: readonly SessionStoreEntry[]): string =>
  entries.find((e) => e.type === 'assistant' && JSON.stringify(e.message).includes('Results: 4017.'))?.uuid ??
  ''

/** The entries the CLI wrote before its copy (kept in the fork's sidecar, not as rows). */
const headOf = (entries: readonly SessionStoreEntry[]): number =>
  entries.findIndex((e) => e.uuid !== undefined)

/** The ledger's message rows (every session's): what a write added. */
function messageRows(opened: OpenedSessions): number {
  const sqlite = sqliteOf(opened.ledger)
  if (sqlite === undefined) throw new Error('a SQLite ledger was expected')
  return Number(sqlite.store.connection().prepare('SELECT count(*) FROM messages').pluck().get())
}

/** The messages of the first model request from index `from` on. */
const sentFrom = (standIn: StandIn, from: number): string =>
  JSON.stringify(standIn.requests[from]?.body.messages)

describe('forks with the real Claude Code CLI, SQLite', () => {
  it('a forkSession fork is resumed by the CLI in another process as the SDK’s own fork is', async () => {
    const standIn = await startStandIn(calcModel())
    const cwd = join(dir.path, 'project-a')
    mkdirSync(cwd, { recursive: true })
    const location = join(dir.path, 'fork.db')
    const opened = await openSessions(location)
    try {
      const setup = { cli, url: standIn.url, cwd, sessionStore: opened.sessions, scratch: dir.path }
      const sessionId = await twoTurns(setup)
      const parentKey = { projectKey: projectKeyOf(cwd), sessionId }
      const parent = (await opened.sessions.load(parentKey)) ?? []
      const upToMessageId = firstAnswer(parent)
      const rows = messageRows(opened)
      const fork = await forkSession(sessionId, { upToMessageId, dir: cwd, sessionStore: opened.sessions })
      expect(messageRows(opened)).toBe(rows)
      const forkKey = { projectKey: parentKey.projectKey, sessionId: fork.sessionId }
      const atFork = (await opened.sessions.load(forkKey)) ?? []

      // The SDK's own fork of the same session on its in-memory store, resumed in this process.
      const oracle = new InMemorySessionStore()
      await oracle.append(parentKey, parent)
      const theirs = await sdkForkSession(sessionId, { upToMessageId, dir: cwd, sessionStore: oracle })
      const oracleFrom = standIn.requests.length
      await runQuery(FORKED, runOptions({ ...setup, sessionStore: oracle }, { resume: theirs.sessionId }))

      // Ours, resumed by a second process from the ledger file.
      const ourFrom = standIn.requests.length
      await opened.ledger.close()
      const args: ResumeArgs = {
        location,
        cli,
        url: standIn.url,
        cwd,
        scratch: dir.path,
        sessionId: fork.sessionId,
        prompts: [FORKED],
      }
      const worker = await collect(launchTsx('claude-agent-resume', args))
      expectClean(worker)
      expect([...new Set(tagged(worker, 'session'))]).toStrictEqual([fork.sessionId])
      const sent = sentFrom(standIn, ourFrom)
      expect(sent).toContain('4017')
      expect(sent).toContain('7 + 8')
      expect(sent).not.toContain('250 + 5')
      expect(sent).toBe(sentFrom(standIn, oracleFrom))

      const appends = tagged(worker, 'append').map((l) => JSON.parse(l) as RecordedAppend)
      const theirAppends = concatenated(appends, forkKey)
      expect(theirAppends.length).toBeGreaterThan(3)
      const again = await openSessions(location)
      try {
        expect(await again.sessions.load(forkKey)).toStrictEqual([...atFork, ...theirAppends])
        // The fork holds the rows of its own turn; everything before them it shares.
        expect(messageRows(again)).toBe(rows + theirAppends.length)
        expect(await again.sessions.load(parentKey)).toStrictEqual(parent)
      } finally {
        await again.ledger.close()
      }
    } finally {
      await standIn.close()
    }
  }, 300_000)

  it.each([
    ['all of it', false],
    ['up to resumeSessionAt', true],
  ])(
    'a resume with forkSession: true, %s, is a ledger fork that stores only what is new',
    async (_what, at) => {
      const standIn = await startStandIn(calcModel())
      const cwd = join(dir.path, `project-${at ? 'at' : 'all'}`)
      mkdirSync(cwd, { recursive: true })
      const location = join(dir.path, `resume-${at ? 'at' : 'all'}.db`)
      const opened = await openSessions(location)
      try {
        const recording = new RecordingSessionStore(opened.sessions)
        const setup = { cli, url: standIn.url, cwd, sessionStore: recording, scratch: dir.path }
        const sessionId = await twoTurns(setup)
        const parentKey = { projectKey: projectKeyOf(cwd), sessionId }
        const parent = (await opened.sessions.load(parentKey)) ?? []
        const from = recording.appends.length
        const rows = messageRows(opened)
        const extra = at ? { resumeSessionAt: firstAnswer(parent) } : {}
        const requestsFrom = standIn.requests.length
        const run = await runQuery(
          FORKED,
          runOptions(setup, { resume: sessionId, forkSession: true, ...extra }),
        )
        expect(run.sessionId).not.toBe(sessionId)
        const key = { projectKey: parentKey.projectKey, sessionId: run.sessionId }
        const written = concatenated(recording.appends.slice(from), key)
        expect(await opened.sessions.load(key)).toStrictEqual(written)
        const id = opened.sessions.sessionIdOf(key)
        const session = await opened.ledger.session(id)
        expect(session?.parentId).toBe(opened.sessions.sessionIdOf(parentKey))
        // Its own rows: what the CLI wrote besides its copy of the parent's entries.
        const inParent = new Set(parent.map((e) => e.uuid).filter((u) => u !== undefined))
        const copied = written.filter((e) => e.uuid !== undefined && inParent.has(e.uuid)).length
        expect(copied).toBeGreaterThan(5)
        expect(messageRows(opened)).toBe(rows + written.length - copied - headOf(written))
        // The CLI sent the model the parent's turns up to the fork point, then the new prompt.
        const sent = sentFrom(standIn, requestsFrom)
        expect(sent).toContain('4017')
        expect(sent).toContain('7 + 8')
        expect(sent.includes('250 + 5')).toBe(!at)
      } finally {
        await opened.ledger.close()
        await standIn.close()
      }
    },
    300_000,
  )

  it('examples/claude-agent-fork.ts runs as documented', async () => {
    const standIn = await startStandIn(calcModel())
    try {
      // The example makes its own CLAUDE_CONFIG_DIR.
      const env = Object.fromEntries(
        Object.entries({ ...standInEnv(standIn.url, dir.path), CLAUDE_CODE_PATH: cli }).filter(
          ([name]) => name !== 'CLAUDE_CONFIG_DIR',
        ),
      )
      const root = join(import.meta.dirname, '..', '..')
      const example = join(root, 'examples', 'claude-agent-fork.ts')
      const child = spawn(process.execPath, ['--import', 'tsx', example, join(dir.path, 'example.db')], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exit = await collect(child)
      expect({ code: exit.code, stderr: exit.stderr }).toStrictEqual({ code: 0, stderr: '' })
      const out = exit.lines.join('\n')
      expect(out).toMatch(/forkSession: [0-9a-f-]{36} answered "You said: Make the cat name shorter\."/)
      expect(out).toMatch(/resume with forkSession: [0-9a-f-]{36} answered/)
      expect(out).toMatch(/ {2}[0-9a-f-]{36} {2}fork at seq \d+: \d+ entries/)
      expect(out).toContain('rows shared, not copied: yes')
    } finally {
      await standIn.close()
    }
  }, 300_000)
})
