/**
 * A real Claude Code run with hostile tool traffic, written once for both backends (SQLite:
 * claude-agent-hostile-cli.test.ts, PostgreSQL: test/postgres/claude-agent-hostile-cli.test.ts). The
 * scripted model calls an in-process MCP tool with an input nested 80 levels deep and holding a `toJSON`
 * key; the tool answers text cut inside an emoji (a lone surrogate) with a NUL, and `structuredContent`
 * with a `toJSON` key, the same deep tree and a 17 MiB string — which the CLI saves to a file for the
 * model, but keeps whole in the transcript entry (`mcpMeta`). Then the session is resumed from the
 * ledger in a fresh `CLAUDE_CONFIG_DIR`. Before the fixes each of these made the store refuse the batch
 * and the SDK drop it (`mirror_error`): 51 of 53 entries lost, and the resume started from nothing.
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { z } from 'zod'
import {
  createSdkMcpServer,
  tool,
  type Options,
  type SDKMessage,
  type SessionKey,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { openSessions } from '../helpers/claude-ledger.js'
import { RecordingSessionStore, type RecordedAppend } from '../helpers/claude-recording-store.js'
import { runQuery } from '../helpers/claude-run.js'
import {
  lastToolResults,
  type ApiBlock,
  startStandIn,
  standInEnv,
  type RecordedRequest,
  type StandInScript,
} from '../helpers/claude-stand-in.js'
import { expectSidecarIsFold } from './claude-agent-checks.js'
import { concatenated } from './claude-agent-support.js'

/** The MCP tools the model calls: one answers text, the other structured content. */
const PROBE = 'mcp__hostile__probe'
const DUMP = 'mcp__hostile__dump'

/** What the probe answers: cut inside an emoji, with a NUL. */
export const CUT_TEXT = 'reactions: thumbs \ud83d and a NUL \u0000 here'

/** An object nested `depth` levels under `d` keys. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom'
  for (let i = 0; i < depth; i++) value = { d: value }
  return value
}

/** The text of a tool result block. */
const textOf = (block: ApiBlock | undefined): string =>
  typeof block?.content === 'string'
    ? block.content
    : (block?.content ?? []).map((b) => b.text ?? '').join('')

/**
 * The model: the probe (its input deep, with a toJSON key), then the dump, then a word on what it got;
 * a short answer to the resumed prompt.
 */
const script: StandInScript = (request) => {
  const result = lastToolResults(request)[0]
  if (result !== undefined)
    return textOf(result).includes('reactions')
      ? { text: 'Dumping.', calls: [{ name: DUMP, input: {} }] }
      : { text: 'Noted the probe.' }
  return request.messages.length === 1
    ? { text: 'Probing.', calls: [{ name: PROBE, input: { payload: { toJSON: 'x', tree: nested(80) } } }] }
    : { text: 'Resumed.' }
}

function hostileServer(): ReturnType<typeof createSdkMcpServer> {
  return createSdkMcpServer({
    name: 'hostile',
    version: '1.0.0',
    tools: [
      tool('probe', 'Probes', { payload: z.any() }, () =>
        Promise.resolve({ content: [{ type: 'text' as const, text: CUT_TEXT }] }),
      ),
      tool('dump', 'Dumps', {}, () =>
        Promise.resolve({
          content: [{ type: 'text' as const, text: 'dumped' }],
          structuredContent: { toJSON: { a: 1 }, tree: nested(80), blob: 'b'.repeat(17 * 1024 * 1024) },
        }),
      ),
    ],
  })
}

/** What {@link hostileRun} saw. */
export interface HostileRun {
  /** The main key. */
  readonly key: SessionKey
  /** Every batch the CLI handed the store, both queries'. */
  readonly appends: readonly RecordedAppend[]
  /** What each query yielded. */
  readonly messages: readonly SDKMessage[][]
  /** The Messages requests, both queries'. */
  readonly requests: readonly RecordedRequest[]
}

/**
 * The run: a query whose tool traffic is hostile, then a resume of it from the ledger.
 *
 * @param location - the ledger (SQLite file or PostgreSQL connection string)
 * @param cli - the CLI binary
 * @param dir - a scratch folder
 * @returns what the CLI handed the store and what the queries yielded
 */
export async function hostileRun(location: string, cli: string, dir: string): Promise<HostileRun> {
  const standIn = await startStandIn(script)
  const cwd = join(dir, 'hostile-project')
  mkdirSync(cwd, { recursive: true })
  const { ledger, sessions } = await openSessions(location)
  try {
    const recording = new RecordingSessionStore(sessions)
    const options = (extra: Options = {}): Options => ({
      pathToClaudeCodeExecutable: cli,
      env: standInEnv(standIn.url, mkdtempSync(join(dir, 'config-'))),
      sessionStore: recording,
      cwd,
      model: 'claude-sonnet-4-5',
      tools: [],
      mcpServers: { hostile: hostileServer() },
      allowedTools: [PROBE, DUMP],
      settingSources: [],
      ...extra,
    })
    const first = await runQuery('Probe it.', options())
    const second = await runQuery('And now?', options({ resume: first.sessionId }))
    const key = recording.appends.find((a) => a.key.subpath === undefined)?.key
    if (key === undefined) throw new Error('the query appended no main transcript')
    return {
      key,
      appends: recording.appends,
      messages: [first.messages, second.messages],
      requests: standIn.requests,
    }
  } finally {
    await ledger.close()
    await standIn.close()
  }
}

/** The repair records an entry carries. */
const repairsOf = (entry: SessionStoreEntry): { path: string; problem: string }[] =>
  (entry.contextLedger as { repaired?: { path: string; problem: string }[] } | undefined)?.repaired ?? []

/**
 * Asserts the ledger kept every entry of the run: nothing dropped, the hostile ones repaired where the
 * limits could not hold them and exact elsewhere, the resume fed from them.
 *
 * @param run - the run
 * @param location - its ledger
 */
export async function expectHostileRunKept(run: HostileRun, location: string): Promise<void> {
  const errors = run.messages.flat().filter((m) => m.type === 'system' && m.subtype === 'mirror_error')
  expect(errors).toStrictEqual([])
  const sent = concatenated(run.appends, run.key)
  const opened = await openSessions(location)
  const { ledger, sessions } = opened
  try {
    const loaded = (await sessions.load(run.key)) ?? []
    expect(loaded).toHaveLength(sent.length)
    const repaired = loaded.flatMap((e, i) => (repairsOf(e).length > 0 ? [i] : []))
    loaded.forEach((entry, i) => {
      if (!repaired.includes(i)) expect(entry).toStrictEqual(sent[i])
    })
    // The probe's call (its input too deep) and result (cut text, twice: the block and toolUseResult), the
    // dump's result (deep tree, 17 MiB string, in mcpMeta); the toJSON keys are kept as they came.
    const problems = repaired.map((i) =>
      [...new Set(repairsOf(loaded[i] as SessionStoreEntry).map((r) => r.problem))].sort(),
    )
    expect(problems).toStrictEqual([['too-deep'], ['lone-surrogate'], ['string-too-long', 'too-deep']])
    expect(JSON.stringify(loaded)).toContain('"toJSON":"x"')
    expect(JSON.stringify(loaded)).toContain('"toJSON":{"a":1}')
    // The resume read the transcript from the ledger: the model saw the first turn, the cut text repaired.
    const resumed = JSON.stringify(run.requests.at(-1)?.body.messages)
    expect(resumed).toContain('Probe it.')
    expect(resumed).toContain('reactions: thumbs \ufffd and a NUL')
    // The SDK's summary is the fold of what the ledger holds, repaired entries included.
    await expectSidecarIsFold(opened, run.key)
  } finally {
    await ledger.close()
  }
}
