/**
 * Running the command line in-process on a real ledger, and a ledger with every kind of fact: several
 * sessions, tool calls (one answered late, one interrupted and repaired), pins by several actors with
 * reasons, an unpin, protected ranges, an applied window that moved the boundary and keeps rows before it,
 * an edit, a redaction, a repeat, and a summary folded over an earlier one.
 */
import { PassThrough, Readable } from 'node:stream'
import { PersistentConversationManager, type ContextStore, type MessageData } from '../../src/index.js'
import type { CliIo } from '../../src/cli/io.js'
import { runCli } from '../../src/cli/program.js'

/** What a run printed and returned. */
export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A stream that collects what is written. */
class Collector {
  text = ''
  constructor(
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk
    return true
  }
}

/**
 * Runs `context-ledger …` in this process.
 *
 * @param argv - the arguments
 * @param options - stdin text, a TTY stdout/stderr, its width, extra environment
 * @returns the exit code and what went to stdout and stderr
 */
export async function cli(
  argv: readonly string[],
  options: {
    stdin?: string
    tty?: boolean
    stdinTTY?: boolean
    columns?: number
    env?: Record<string, string>
  } = {},
): Promise<CliRun> {
  const stdout = new Collector(options.tty === true, options.columns)
  const stderr = new Collector(options.tty === true, options.columns)
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Object.assign(options.stdin === undefined ? new PassThrough() : Readable.from([options.stdin]), {
      isTTY: options.stdinTTY === true,
    }),
    env: { ...options.env },
  }
  const code = await runCli(argv, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}

let n = 0
const id = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`
const user = (text: string): MessageData => ({ role: 'user', content: [{ text }], trackingId: id() })
const assistant = (text: string): MessageData => ({
  role: 'assistant',
  content: [{ text }],
  trackingId: id(),
})
const call = (toolUseId: string, name: string, input: Record<string, string>): MessageData => ({
  role: 'assistant',
  content: [{ toolUse: { toolUseId, name, input } }],
  trackingId: id(),
})
const result = (toolUseId: string, text: string, status: 'success' | 'error' = 'success'): MessageData => ({
  role: 'user',
  content: [{ toolResult: { toolUseId, status, content: [{ text }] } }],
  trackingId: id(),
})

/** The limits of the rich session. */
export const RICH_LIMITS = { windowSize: 8, protectedMessages: { first: 1 } }

/**
 * Fills a store with a rich session (`support-42`) and a small one (`other`).
 *
 * @param store - a writable store
 * @returns the rich session's manager
 */
export async function buildRichLedger(store: ContextStore): Promise<PersistentConversationManager> {
  const m = new PersistentConversationManager({ store, sessionId: 'support-42', ...RICH_LIMITS })
  m.append(user('Plan the migration of the orders database. Customer id 4711.'))
  m.append(assistant('Step 1: take a backup.'))
  m.pin({ seq: 1 }, { actor: 'agent', reason: 'the plan' })
  for (let t = 0; t < 6; t++) {
    m.append([
      user(`Check replication lag, round ${t}.`),
      call(`t${t}`, 'run_sql', { sql: 'SELECT lag FROM replicas' }),
      result(`t${t}`, `lag is ${t * 10} ms`),
      assistant(`Round ${t}: replication lag is ${t * 10} ms.`),
    ])
    m.applyWindow()
  }
  m.pin({ seq: 4 }, { actor: 'ops', reason: 'first lag reading' })
  m.pin({ seq: 10 }, { actor: 'user' })
  m.unpin({ seq: 10 }, { actor: 'user', reason: 'not needed' })
  m.edit(
    { seq: 5 },
    { role: 'assistant', content: [{ text: 'Round 0: lag fine.' }] },
    { actor: 'support', reason: 'shorter' },
  )
  m.redact({ seq: 3 }, { actor: 'dpo', reason: 'erasure request' })
  // The window's oldest half is all protected rows (the first message, the pins and their partners):
  // a ratio of 0.8 reaches past them into the tail.
  const first = await m.summarize(() => 'Earlier rounds: replication lag 0–20 ms.', {
    summaryRatio: 0.8,
    preserveRecentMessages: 2,
    model: 'test-model',
  })
  if (first.summary === undefined)
    throw new Error(`the first summary folded nothing: ${String(first.reason)}`)
  m.append([user('Now migrate.'), call('m1', 'migrate', { table: 'orders' })])
  m.append(user('Status?')) // interrupts m1: a repair row answers it
  m.append(result('m1', 'migrated', 'success')) // late
  m.append(assistant('Migrated; the result came late.'))
  await m.summarize(() => 'Everything up to the migration, lag 0–50 ms.', {
    summaryRatio: 0.5,
    preserveRecentMessages: 2,
    model: 'test-model',
  })
  const other = new PersistentConversationManager({ store, sessionId: 'other', windowSize: 40 })
  other.append([user('hello'), assistant('hi there')])
  return m
}
