/**
 * What `npm run demo -- --ai-sdk` prints about the ledger: the archive and the window, what left the
 * window and why (the eviction log), what recall found, what each summary stands for, and where to look
 * next with the CLI. Every number is read from the file.
 */
import type { ModelMessage } from 'ai'
import type { LedgerSession } from '../src/adapters/ai-sdk/index.js'
import type { ContextStore, EvictionRecord, SummaryRecord } from '../src/index.js'
import {
  clip,
  FACT,
  int,
  SESSION_ID,
  sizeOf,
  TOKEN_BUDGET,
  WINDOW_SIZE,
  type TurnResult,
} from './ai-sdk-demo-agent.js'

function textOf(message: unknown): string {
  const content = (message as { content?: unknown }).content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((p: { text?: unknown; output?: { value?: unknown } }) =>
      typeof p.text === 'string' ? p.text : typeof p.output?.value === 'string' ? `← ${p.output.value}` : '',
    )
    .join('')
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i)
}

function span(from: number, to: number): string {
  return from === to ? `seq ${from}` : `seqs ${from}–${to}`
}

/** How many messages the eviction log says left, in how many cuts, by cut and reason. */
function leftBy(log: readonly EvictionRecord[]): string {
  const count = new Map<string, number>()
  for (const e of log) {
    const key = e.cut === 'fold' ? 'folded into summaries' : `dropped by a ${e.cut} cut (${e.reason})`
    count.set(key, (count.get(key) ?? 0) + e.toSeq - e.fromSeq + 1)
  }
  return [...count].map(([k, n]) => `${int(n)} ${k}`).join(', ')
}

/**
 * The archive, the window, what left it, the tool results shown truncated, the pins.
 *
 * @param store - the open store
 * @param session - the session
 * @param window - its window, as the next call gets it
 */
export function printArchive(
  store: ContextStore,
  session: LedgerSession,
  window: readonly ModelMessage[],
): void {
  const s = store.session(SESSION_ID)
  if (s === undefined) return
  const shown = sizeOf(window)
  const log = session.ledger.evictions({ limit: 10_000 })
  const left = log.reduce((n, e) => n + e.toSeq - e.fromSeq + 1, 0)
  let truncated = 0
  for (let from = 0; from < s.messageCount; from += 1000)
    for (const e of session.ledger.history({ fromSeq: from, limit: 1000 }))
      if (e.windowMessage !== undefined) truncated++
  console.log(
    `  archive    ${int(s.messageCount)} messages, ${int(s.totalTokens)} tokens: every message the SDK made, stored as it made it (sent whole, it would be a ${int(s.totalTokens)}-token prompt)`,
  )
  console.log(
    `  window     ${shown.messages} messages, ${int(shown.tokens)} tokens (limits ${WINDOW_SIZE} messages, ${int(TOKEN_BUDGET)} tokens): what the next call gets`,
  )
  console.log(`  left       ${int(left)} messages left the window in ${log.length} cuts: ${leftBy(log)}`)
  if (truncated > 0)
    console.log(
      `  truncated  ${truncated} large tool results are shown cut short in the window; the archive keeps them whole`,
    )
  for (const p of store.pinnedMessages({ sessionId: SESSION_ID }))
    console.log(
      `  pinned     seq ${p.seq} by ${p.actor} ("${p.reason ?? ''}"): ${clip(textOf(p.message), 60)}`,
    )
}

/**
 * The recall turn: where the fact was, why it left, what the model called and answered, whether its pin
 * kept what it read in the window.
 *
 * @param store - the open store
 * @param session - the session
 * @param ask - the recall turn
 * @returns whether the model found the fact through recall and the pin holds
 */
export function printRecall(store: ContextStore, session: LedgerSession, ask: TurnResult): boolean {
  const fact = session.ledger.history({ limit: 20 }).find((e) => textOf(e.message) === FACT)
  const seq = fact?.seq ?? -1
  const gone = store.evictionOf(SESSION_ID, seq)
  console.log(`\nRecall:`)
  console.log(`  seq ${seq}, turn 1: "${clip(FACT, 80)}"`)
  if (gone !== undefined)
    console.log(
      `  it left the window at ${gone.at.toISOString()}, ${gone.cut === 'fold' ? `folded into summary #${gone.summaryId}` : `dropped by a ${gone.cut} cut (${gone.reason})`} — the eviction log`,
    )
  const summary = session.ledger.summaries().find((r) => r.current)
  console.log(
    `  the summary the model sees mentions the ticket: ${textOf(summary?.message).includes('CHG-') ? 'yes' : 'no (it keeps host statuses only)'}`,
  )
  for (const [i, c] of ask.toolCalls.entries())
    console.log(
      `  step ${i + 1}: the model calls ${c.name} ${JSON.stringify(c.input)}\n          → ${clip(ask.toolResults[i] ?? '', 100)}`,
    )
  console.log(`  answer: "${ask.text}"`)
  const names = ask.toolCalls.map((c) => c.name).join(',')
  const found = names === 'search_history,read_history,pin_message' && ask.text.includes('CHG-20931')
  console.log(`  recall found the evicted fact: ${found ? 'yes' : 'NO'}`)
  const pin = store
    .pinnedMessages({ sessionId: SESSION_ID })
    .find((p) => p.reason?.startsWith('change ticket'))
  console.log(
    `  the pinned read_history result (seq ${pin?.seq ?? '?'}), 4 turns later, is in the window: ${pin?.inWindow === true ? 'yes' : 'NO'}`,
  )
  return found && pin?.inWindow === true
}

/**
 * The summaries: how many, the one the window shows, and the messages it stands for through its chain.
 *
 * @param session - the session
 */
export function printSummaries(session: LedgerSession): void {
  const all = session.ledger.summaries()
  const byId = new Map(all.map((r) => [r.id, r]))
  const current = all.find((r) => r.current)
  console.log(
    `\nSummaries: ${all.length} written by the scripted model, each folding what was leaving the window`,
  )
  if (current === undefined) return
  const chain: SummaryRecord[] = []
  for (
    let r: SummaryRecord | undefined = current;
    r !== undefined;
    r = r.replaces === undefined ? undefined : byId.get(r.replaces)
  )
    chain.push(r)
  const own = current.seqs.map(([from, to]) => span(from, to - 1)).join(', ')
  const covered = new Set(chain.flatMap((r) => r.seqs.flatMap(([from, to]) => range(from, to))))
  const first = Math.min(...covered)
  const last = Math.max(...covered)
  const kept = range(first, last + 1).filter((n) => !covered.has(n))
  const lines = textOf(current.message).split('\n')
  console.log(
    `  the window shows #${current.id} (${int(current.tokens)} tokens, by ${current.model ?? '?'}):`,
  )
  for (const line of lines.slice(0, 4)) console.log(`    ${clip(line, 90)}`)
  if (lines.length > 4) console.log(`    … ${lines.length - 4} more lines`)
  console.log(
    `  #${current.id} folded ${own} itself (${current.messageCount} messages) and replaced #${current.replaces ?? '-'}; ` +
      `with the summaries before it (#${current.id} ← … ← #${chain.at(-1)?.id}) it stands for ${int(covered.size)} messages, ` +
      `${span(first, last)}${kept.length > 0 ? ` but ${kept.map((n) => `seq ${n}`).join(', ')}, kept in the window` : ''}`,
  )
  const archived = session.ledger
    .history({ fromSeq: first, limit: last - first + 1 })
    .filter((e) => covered.has(e.seq))
  console.log(
    `  the archive still holds all ${int(archived.length)} of them: history(), search_history and read_history return them`,
  )
}

/**
 * Where to look next: the CLI on the file.
 *
 * @param file - the ledger file
 * @param sessionId - the session
 * @param removed - whether the file is a temp file removed now
 */
export function printCli(file: string, sessionId: string, removed: boolean): void {
  const f = removed ? 'ops.db' : file
  console.log(
    `\nLook inside the file with the CLI (in this repository, \`npx tsx src/cli/main.ts\` runs it unbuilt):`,
  )
  console.log(
    `  npx context-ledger window ${f} ${sessionId} --explain   # each window message and why it is there`,
  )
  console.log(
    `  npx context-ledger evictions ${f} ${sessionId}          # what left the window, when and why`,
  )
  console.log(`  npx context-ledger search ${f} "change ticket" --session ${sessionId}`)
  console.log(
    `  npx context-ledger sessions ${f}                        # messages, window, tokens, pins, summaries`,
  )
  if (removed)
    console.log(
      `(this run's file was a temp file, removed now: \`npm run demo -- --ai-sdk --db ops.db\` keeps it)`,
    )
}
