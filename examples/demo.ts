/**
 * `npm run demo:core [-- path/to/demo.db] [-- --turns N]`
 *
 * Without a path the ledger goes to a fresh directory under the OS temp dir, removed when the demo ends;
 * with one, the file stays there to be inspected (`npx tsx examples/demo-resume.ts path/to/demo.db`).
 *
 * A scripted, long-running agent conversation (no network, no model): thousands of turns with single and
 * parallel tool calls, pins set by the agent and by the user, one unpin, one context overflow. The
 * window is enforced after every turn (windowSize 40, a 4,000-token budget, the first message and the
 * last two protected). Then the store is closed and a NEW Node process (`demo-resume.ts`) reopens the
 * file and reports what is in it, checking that the window it materializes is the one this process saw.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  openContextStore,
  PersistentConversationManager,
  type ContentBlockData,
  type LedgerEntry,
  type MessageData,
  type WindowResult,
} from '../src/index.js'
import { fingerprint, int, prng, SESSION_ID, WINDOW_OPTIONS } from './demo-shared.js'

interface Args {
  /** The ledger file. */
  path: string
  /** The temp directory holding it, removed at the end; undefined for a path the user gave. */
  scratch: string | undefined
  turns: number
}

function readArgs(argv: readonly string[]): Args {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { turns: { type: 'string', default: '2500' } },
    allowPositionals: true,
  })
  const turns = Number(values.turns)
  if (!Number.isInteger(turns) || turns < 10) throw new Error('--turns takes an integer of at least 10')
  const given = positionals[0]
  if (given !== undefined) return { path: resolve(given), scratch: undefined, turns }
  const scratch = mkdtempSync(join(tmpdir(), 'context-ledger-demo-'))
  return { path: join(scratch, 'demo.db'), scratch, turns }
}

const TOOLS = ['run_sql', 'read_file', 'search_docs', 'run_tests', 'check_replication_lag'] as const
const STEPS = [
  'Backfill the next batch of orders into Postgres',
  'Compare row counts between MySQL and Postgres for the last batch',
  'Look into the failing integration test in billing',
  'Check the replication lag before we continue',
  'Rewrite the slow report query for Postgres',
  'Verify the new indexes on order_items',
  'Summarize what changed since the last checkpoint',
]

/** Writes the scripted conversation. Returns the numbers the summary prints. */
class ScriptedAgent {
  readonly rand = prng(2026)
  toolCalls = 0
  parallelRounds = 0
  evicted = 0
  maxWindow = 0
  maxTokens = 0
  readonly cuts = new Map<string, number>()
  private callId = 0

  constructor(private readonly manager: PersistentConversationManager) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T
  }

  /** Appends one message, as an agent loop does when it arrives. */
  say(role: MessageData['role'], content: ContentBlockData[], pinned = false): LedgerEntry {
    const message: MessageData = pinned
      ? { role, content, metadata: { custom: { pinned: true } } }
      : { role, content }
    return this.manager.append(message)
  }

  /** The agent reads the orders table's schema: the call, then its result. */
  describeOrders(toolUseId: string, schema: string): LedgerEntry {
    this.say('assistant', [{ toolUse: { toolUseId, name: 'describe_table', input: { table: 'orders' } } }])
    return this.say('user', [{ toolResult: { toolUseId, status: 'success', content: [{ text: schema }] } }])
  }

  /** One tool round: an assistant message with 1–3 toolUse blocks, then the user message with the results. */
  toolRound(turn: number, parallel: number, big: boolean): LedgerEntry {
    const uses = Array.from({ length: parallel }, () => {
      const name = this.pick(TOOLS)
      return { toolUseId: `call-${++this.callId}`, name, input: { step: turn, target: `batch_${turn % 97}` } }
    })
    this.toolCalls += parallel
    if (parallel > 1) this.parallelRounds++
    this.say('assistant', [
      { text: parallel > 1 ? `Running ${parallel} checks in parallel.` : `Calling ${uses[0]?.name}.` },
      ...uses.map((u) => ({ toolUse: u })),
    ])
    return this.say(
      'user',
      uses.map((u, i) => {
        const failed = this.rand() < 0.03
        const text =
          big && i === 0 ? `log excerpt:\n${'INFO copy chunk ok; '.repeat(600)}` : this.result(u.name, turn)
        return {
          toolResult: {
            toolUseId: u.toolUseId,
            status: failed ? ('error' as const) : ('success' as const),
            content: [{ text: failed ? `${u.name} timed out after 30s` : text }],
          },
        }
      }),
    )
  }

  private result(tool: string, turn: number): string {
    const n = Math.floor(this.rand() * 50_000)
    switch (tool) {
      case 'run_sql':
        return `${int(n)} rows affected in batch_${turn % 97}`
      case 'check_replication_lag':
        return `lag ${(n % 900) / 100}s, within the 10s limit`
      case 'run_tests':
        return `${200 + (n % 40)} passed, ${n % 3} failed`
      default:
        return `found ${n % 12} relevant passages about batch_${turn % 97}`
    }
  }

  /** A regular turn: the user asks, the agent uses tools 0–2 rounds, then answers. */
  turn(t: number): void {
    this.say('user', [{ text: `Step ${t}: ${this.pick(STEPS)}.` }])
    const r = this.rand()
    const rounds = r < 0.25 ? 0 : r < 0.9 ? 1 : 2
    for (let k = 0; k < rounds; k++) {
      const parallel = this.rand() < 0.25 ? 2 + Math.floor(this.rand() * 2) : 1
      this.toolRound(t, parallel, this.rand() < 0.02)
    }
    this.say('assistant', [
      { text: `Done with step ${t}; ${rounds === 0 ? 'no tools needed' : 'results look fine'}.` },
    ])
  }

  /** Enforces the window and keeps the statistics. */
  apply(): WindowResult {
    const result = this.manager.applyWindow()
    this.record(result)
    return result
  }

  record(result: WindowResult): void {
    this.evicted += result.evicted
    this.maxWindow = Math.max(this.maxWindow, result.windowMessages)
    this.maxTokens = Math.max(this.maxTokens, result.windowTokens)
    if (result.cut !== undefined) this.cuts.set(result.cut, (this.cuts.get(result.cut) ?? 0) + 1)
  }
}

function main(): void {
  const args = readArgs(process.argv.slice(2))
  for (const suffix of ['', '-wal', '-shm']) rmSync(args.path + suffix, { force: true })
  const o = WINDOW_OPTIONS
  console.log(`context-ledger demo: ${int(args.turns)} scripted agent turns into ${args.path}`)
  console.log(
    `window: windowSize ${o.windowSize}, tokenBudget ${int(o.tokenBudget)}, protectedMessages { first: ${o.protectedMessages.first}, last: ${o.protectedMessages.last} }; applyWindow() after every turn\n`,
  )

  const started = performance.now()
  const store = openContextStore(args.path)
  const manager = new PersistentConversationManager({ store, sessionId: SESSION_ID, ...WINDOW_OPTIONS })
  const agent = new ScriptedAgent(manager)
  const events: string[] = []
  let schemaSeq = -1

  for (let t = 0; t < args.turns; t++) {
    if (t === 0) {
      agent.say('user', [
        {
          text: 'Task: migrate the orders service from MySQL to Postgres with no downtime. Keep a rollback path at every step.',
        },
      ])
      agent.say('assistant', [{ text: 'Understood. I will start by reading the current schema.' }])
    } else if (t === 3) {
      // The agent pins a tool result it will need for the whole task; its toolUse partner comes along.
      agent.say('user', [{ text: 'Step 3: Show me the orders table before we touch anything.' }])
      const schema = agent.describeOrders(
        'schema-v1',
        'orders(id bigint pk, customer_id bigint, status varchar(16), total_cents int, created_at datetime)',
      )
      schemaSeq = schema.seq
      const windowIndex = manager.window().length - 1
      manager.pin({ windowIndex }, { actor: 'agent', reason: 'orders schema: every backfill step needs it' })
      agent.say('assistant', [{ text: 'Schema noted and pinned.' }])
      events.push(`turn 3: the agent pinned the schema result by { windowIndex: ${windowIndex} }`)
    } else if (t === 5) {
      const entry = agent.say('user', [
        { text: 'Constraint: never run DDL on Fridays. Ask me before any schema change.' },
      ])
      manager.pin(
        { trackingId: entry.trackingId },
        { actor: 'user', reason: 'standing constraint from the user' },
      )
      agent.say('assistant', [{ text: 'Got it: no DDL on Fridays, and I will ask first.' }])
      events.push(`turn 5: the user pinned a constraint by { trackingId }`)
    } else if (Math.floor(args.turns * 0.36) === t) {
      agent.say('user', [{ text: `Step ${t}: Decide how we cut over.` }])
      agent.say(
        'assistant',
        [
          {
            text: 'Decision: cut over with logical replication; rollback = point the app back at MySQL, which keeps receiving writes.',
          },
        ],
        true,
      )
      events.push(`turn ${t}: the agent appended a decision with metadata.custom.pinned = true`)
    } else if (Math.floor(args.turns * 0.64) === t) {
      // The schema changed: unpin the old result, pin the new one by seq.
      agent.say('user', [{ text: `Step ${t}: We split the status column. Re-read the schema.` }])
      manager.unpin({ seq: schemaSeq }, { actor: 'agent', reason: 'superseded by schema v2' })
      const result = agent.describeOrders(
        'schema-v2',
        'orders(id bigint pk, customer_id bigint, state_id smallint fk, total_cents int, created_at timestamptz)',
      )
      manager.pin(
        { seq: result.seq },
        { actor: 'agent', reason: 'orders schema v2 after the status column split' },
      )
      agent.say('assistant', [{ text: 'Updated my notes to schema v2.' }])
      events.push(
        `turn ${t}: the agent unpinned schema v1 by { seq: ${schemaSeq} } and pinned v2 by { seq: ${result.seq} }`,
      )
    } else if (Math.floor(args.turns * 0.84) === t) {
      agent.turn(t)
      const overflow = manager.reduce({ overflow: true })
      agent.record(overflow)
      events.push(
        `turn ${t}: the model reported a context overflow; reduce({ overflow: true }) evicted ${overflow.evicted}`,
      )
    } else {
      agent.turn(t)
    }
    const result = agent.apply()
    if ((t + 1) % 500 === 0 || t + 1 === args.turns) {
      const s = store.session(SESSION_ID)
      console.log(
        `turn ${int(t + 1).padStart(5)}: archive ${int(s?.messageCount ?? 0).padStart(6)} messages, ` +
          `window ${String(result.windowMessages).padStart(2)} messages / ${int(result.windowTokens).padStart(5)} tokens, ` +
          `${s?.pinnedCount ?? 0} pinned`,
      )
    }
  }
  const seconds = (performance.now() - started) / 1000
  const window = manager.window()
  const print = fingerprint(window)
  const messages = store.session(SESSION_ID)?.messageCount ?? 0

  console.log('')
  for (const e of events) console.log(`  ${e}`)
  console.log(
    `\nwrote ${int(messages)} messages (${int(agent.toolCalls)} tool calls, ${int(agent.parallelRounds)} parallel rounds) in ${seconds.toFixed(1)} s ` +
      `(${((seconds * 1e6) / args.turns).toFixed(0)} µs per turn including applyWindow)`,
  )
  console.log(
    `evicted ${int(agent.evicted)} messages from the window in total; largest window ${agent.maxWindow} messages, ` +
      `${int(agent.maxTokens)} tokens; cuts: ${[...agent.cuts].map(([k, v]) => `${k} ${int(v)}`).join(', ')}`,
  )
  console.log(`window before close: ${window.length} messages, fingerprint ${print.ids.slice(0, 12)}…`)
  store.close()

  console.log(`\nstore closed; reopening ${args.path} in a new Node process…\n`)
  const resume = fileURLToPath(new URL('./demo-resume.ts', import.meta.url))
  const child = spawn(
    process.execPath,
    [...process.execArgv, resume, args.path, '--expect-ids', print.ids, '--expect-json', print.json],
    { stdio: 'inherit' },
  )
  child.on('exit', (code) => {
    process.exitCode = code ?? 1
    if (args.scratch !== undefined) rmSync(args.scratch, { recursive: true, force: true })
    else console.log(`\nthe ledger stays in ${args.path}`)
  })
}

main()
