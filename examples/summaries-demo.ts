/**
 * `npm run demo:summaries [-- path/to/demo.db] [-- --turns N]`
 *
 * A long scripted conversation (no network, no model) where what leaves the window is folded into a
 * summary instead of dropped: after every turn, `summarizeExcess()` keeps the window within 24 messages by
 * summarizing the oldest part, the previous summary included. The summarizer here is an offline, extractive
 * one (it keeps the questions asked and the tools' results, one bullet each, the newest 30); a real agent
 * would call a model. Then the demo prints the summary chain with the exact messages each link stands for,
 * regenerates the current summary from the raw archive with a second summarizer, and proves that every raw
 * message is still in the archive, byte for byte, and that a reopened file shows the same window.
 *
 * Without a path the ledger goes to a fresh directory under the OS temp dir, removed when the demo ends.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  openContextStore,
  PersistentConversationManager,
  type MessageData,
  type Summarizer,
  type SummaryRecord,
} from '../src/index.js'

const SESSION = 'migration-7'
const TOOLS = ['run_sql', 'check_replication_lag', 'run_tests', 'read_file'] as const
const TABLES = ['orders', 'order_items', 'customers', 'invoices', 'payments', 'refunds'] as const

function readArgs(argv: readonly string[]): { path: string; scratch: string | undefined; turns: number } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { turns: { type: 'string', default: '400' } },
    allowPositionals: true,
  })
  const turns = Number(values.turns)
  if (!Number.isInteger(turns) || turns < 20) throw new Error('--turns takes an integer of at least 20')
  const given = positionals[0]
  if (given !== undefined) return { path: resolve(given), scratch: undefined, turns }
  const scratch = mkdtempSync(join(tmpdir(), 'context-ledger-summaries-'))
  return { path: join(scratch, 'demo.db'), scratch, turns }
}

/** One turn: a question, a tool call, its result, an answer. */
function turn(i: number): MessageData[] {
  const table = TABLES[i % TABLES.length] as string
  const tool = TOOLS[i % TOOLS.length] as string
  const id = `call-${i}`
  const result =
    tool === 'check_replication_lag'
      ? `lag ${(i * 37) % 900} ms`
      : tool === 'run_tests'
        ? `${200 + (i % 7)} passed, ${i % 5 === 0 ? 1 : 0} failed`
        : `${table}: ${(i * 7919) % 100_000} rows`
  return [
    { role: 'user', content: [{ text: `Step ${i}: migrate batch ${i} of ${table} and check it.` }] },
    {
      role: 'assistant',
      content: [
        { text: `Running ${tool} for ${table}.` },
        { toolUse: { toolUseId: id, name: tool, input: { table, batch: i } } },
      ],
    },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: result }] } }],
    },
    { role: 'assistant', content: [{ text: `Batch ${i} of ${table} is done (${result}).` }] },
  ]
}

/** The text of a message, blocks joined. */
function textOf(message: MessageData): string {
  return message.content
    .map((b) =>
      'text' in b
        ? b.text
        : 'toolResult' in b
          ? b.toolResult.content.map((c) => ('text' in c ? c.text : '')).join(' ')
          : '',
    )
    .join(' ')
    .trim()
}

/**
 * An offline summarizer: the previous summary's bullets, then one bullet per question and per tool
 * result among the folded messages; the newest 30 bullets are kept.
 */
const extractive: Summarizer = (messages) => {
  const bullets: string[] = []
  for (const m of messages.slice(0, -1)) {
    const text = textOf(m)
    if (text.startsWith('## Conversation so far'))
      bullets.push(...text.split('\n').filter((l) => l.startsWith('- ')))
    else if (m.role === 'user' && m.content.some((b) => 'toolResult' in b)) bullets.push(`- result: ${text}`)
    else if (m.role === 'user') bullets.push(`- asked: ${text}`)
  }
  return { text: ['## Conversation so far', ...bullets.slice(-30)].join('\n'), model: 'extractive-v1' }
}

/** A second summarizer, as a better model would be: counts per tool instead of listing every result. */
const tally: Summarizer = (messages) => {
  const counts = new Map<string, number>()
  const steps: number[] = []
  for (const m of messages.slice(0, -1))
    for (const b of m.content) {
      if ('toolUse' in b) counts.set(b.toolUse.name, (counts.get(b.toolUse.name) ?? 0) + 1)
      if ('text' in b && m.role === 'user') steps.push(Number(/Step (\d+)/.exec(b.text)?.[1] ?? NaN))
    }
  const done = steps.filter(Number.isFinite)
  return {
    text: [
      '## Conversation so far',
      `- steps ${Math.min(...done)}–${Math.max(...done)} were migrated and checked (${done.length} in all)`,
      ...[...counts].map(([tool, n]) => `- ${tool} ran ${n} times`),
    ].join('\n'),
    model: 'tally-v2',
  }
}

function ranges(s: SummaryRecord): string {
  return (
    s.seqs.map(([a, b]) => (b - a === 1 ? `${a}` : `${a}–${b - 1}`)).join(', ') || '(no messages of its own)'
  )
}

async function main(): Promise<void> {
  const { path, scratch, turns } = readArgs(process.argv.slice(2))
  const store = openContextStore(path)
  try {
    const manager = new PersistentConversationManager({ store, sessionId: SESSION, windowSize: 24 })
    const appended: string[] = []
    for (const e of manager.append(turn(0))) appended.push(JSON.stringify(e.message))
    manager.pin({ seq: 0 }, { reason: 'the task', actor: 'user' })
    let folds = 0
    for (let i = 1; i < turns; i++) {
      const entries = manager.append(turn(i))
      for (const e of entries) appended.push(JSON.stringify(e.message))
      const r = await manager.summarizeExcess(extractive)
      if (r.summary !== undefined) folds++
    }
    const session = store.session(SESSION)
    const window = manager.window()
    console.log(`${turns} turns, ${session?.messageCount ?? 0} messages in the archive; ${folds} folds`)
    console.log(
      `window: ${window.length} messages (${session?.windowTokens ?? 0} tokens): the pinned task, the summary, then the newest turns`,
    )

    // The chain: the current summary, the one it replaced, and so on down to the first.
    const all = manager.summaries({ limit: 10_000 })
    const byId = new Map(all.map((s) => [s.id, s]))
    const current = all.find((s) => s.current)
    if (current === undefined) throw new Error('no summary in the window')
    console.log(
      `\nthe summary chain (${all.length} summaries), newest first; each link folded exactly these seqs:`,
    )
    let covered = 0
    let shown = 0
    for (
      let link: SummaryRecord | undefined = current;
      link !== undefined;
      link = link.replaces === undefined ? undefined : byId.get(link.replaces)
    ) {
      covered += link.messageCount
      if (shown++ < 6)
        console.log(`  #${link.id} ${link.model ?? ''}: seqs ${ranges(link)} (${link.messageCount} messages)`)
    }
    if (shown > 6) console.log(`  … ${shown - 6} more links`)
    console.log(
      `the current summary stands for ${covered} raw messages; ${window.length - 1} are in the window`,
    )
    console.log(
      `\nwhat the model sees first:\n${textOf(window[1] ?? window[0] ?? { role: 'user', content: [] })
        .split('\n')
        .slice(0, 6)
        .join('\n')}\n  …`,
    )

    // Regenerate from the raw archive with another summarizer.
    const regenerated = await manager.resummarize(current.id, tally)
    console.log(
      `\nregenerated #${current.id} from the raw archive as #${regenerated.id} (${regenerated.model ?? ''}):`,
    )
    console.log(textOf(regenerated.message))

    // The raw archive is intact: every message appended is there, byte for byte.
    const history = []
    for (let from = 0; ; from += 1000) {
      const page = manager.history({ fromSeq: from, limit: 1000 })
      history.push(...page)
      if (page.length < 1000) break
    }
    const hash = (xs: readonly string[]): string => createHash('sha256').update(xs.join('\n')).digest('hex')
    const same = hash(history.map((e) => JSON.stringify(e.message))) === hash(appended)
    console.log(
      `\narchive: ${history.length} messages, byte-identical to what was appended: ${same ? 'yes' : 'NO'}`,
    )
    if (!same || history.length !== appended.length)
      throw new Error('the archive differs from what was appended')

    // A new store object over the same file shows the same window, summary included.
    const again = openContextStore(path, { readonly: true })
    const reopened = JSON.stringify(again.window(SESSION)) === JSON.stringify(manager.window())
    again.close()
    console.log(`reopened: the same window, summary included: ${reopened ? 'yes' : 'NO'}`)
    if (!reopened) throw new Error('the reopened window differs')
  } finally {
    store.close()
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
