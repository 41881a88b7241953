/**
 * Summary crash-test worker: an agent loop that folds its window into summaries and never stops on its
 * own (the parent SIGKILLs it). Each turn is a user message (sometimes pinned on the way in), zero to two
 * tool rounds (the "tool" sleeps a few ms between call and result), a reply; then a fold by ratio, a fold
 * of the excess over a small window, a regeneration or a drop of the summary the window shows, or a pin.
 * The summarizer sleeps a random few ms before it answers, so kills land before, during and after it.
 * Nothing here evicts a message but a fold: the window limits of `summarize`, `resummarize` and
 * `dropSummary` are never reached, and nothing is unpinned.
 *
 * Protocol (stdout, one line each): `R` ready; `A <json>` a message whose append returned; `z` / `Z` the
 * summarizer started / answered; `S <id> <seqs>` a summary whose write returned (its id and `seqs` JSON);
 * `D <id>` a summary whose drop returned.
 *
 * Usage: summary-crash-writer <db> <sessionId> <seed> <run>
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { openContextStore, PersistentConversationManager, type MessageData } from '../../../src/index.js'
import { MessageFactory, report, rng, SUMMARY_CRASH_RANGES } from './worker-kit.js'

const [path, sessionId, seedArg, runArg] = process.argv.slice(2)
if (path === undefined || sessionId === undefined || seedArg === undefined || runArg === undefined)
  throw new Error('usage: summary-crash-writer <db> <sessionId> <seed> <run>')
const run = Number(runArg)
const r = rng(Number(seedArg) * 7919 + run)
// A worker the parent forgot about must not run forever.
setTimeout(() => process.exit(3), 60_000).unref()

const store = openContextStore(path)
const protectedMessages = SUMMARY_CRASH_RANGES
// Limits no plan reaches: only folds take messages out of the window.
const big = new PersistentConversationManager({ store, sessionId, windowSize: 100_000, protectedMessages })
// The window whose excess summarizeExcess folds (it folds, never cuts).
const small = new PersistentConversationManager({ store, sessionId, windowSize: 8, protectedMessages })
const f = new MessageFactory(`s${run}`)
report('R')

function append(messages: MessageData | MessageData[]): void {
  const list = Array.isArray(messages) ? messages : [messages]
  big.append(list)
  for (const m of list) report('A', JSON.stringify(m))
}

async function summarizer(messages: readonly MessageData[]): Promise<string> {
  report('z')
  await sleep(r.int(0, 12))
  report('Z')
  return `run ${run} summary of ${messages.length - 1} messages`
}

for (let turn = 0; ; turn++) {
  append(f.user(`run ${run} turn ${turn}: ${'q'.repeat(r.int(1, 120))}`, r.chance(0.05)))
  const rounds = r.chance(0.5) ? r.int(1, 2) : 0
  for (let k = 0; k < rounds; k++) {
    const { message, ids } = f.toolUse(r.int(1, 2))
    append(message)
    await sleep(r.int(0, 5))
    append(f.toolResult(ids, r.int(0, 200)))
  }
  append(f.reply(`reply ${turn}: ${'a'.repeat(r.int(1, 200))}`))
  const current = store.session(sessionId)?.summaryId
  const dice = r.next()
  if (dice < 0.45) {
    const { summary } = await big.summarize(summarizer, {
      summaryRatio: 0.1 + r.next() * 0.7,
      preserveRecentMessages: r.int(0, 4),
    })
    if (summary !== undefined) report('S', summary.id, JSON.stringify(summary.seqs))
  } else if (dice < 0.7) {
    const { summary } = await small.summarizeExcess(summarizer)
    if (summary !== undefined) report('S', summary.id, JSON.stringify(summary.seqs))
  } else if (dice < 0.82 && current !== undefined) {
    const summary = await big.resummarize(current, summarizer, { from: r.chance(0.5) ? 'raw' : 'previous' })
    report('S', summary.id, JSON.stringify(summary.seqs))
  } else if (dice < 0.9 && current !== undefined) {
    big.dropSummary(current)
    report('D', current)
  } else {
    const count = store.session(sessionId)?.messageCount ?? 0
    if (count > 0) big.pin({ seq: r.int(0, count - 1) }, { actor: 'agent', reason: `run ${run}` })
  }
}
