/**
 * A compaction item without destroying anything. The SDK replaces a session's history with
 * `[compaction, ...retained]` (`replaceHistoryWithCompaction`), or a wrapper clears the session and adds
 * the compacted items; either way the runner replays from the newest compaction item on. Here the items
 * are appended, and everything the window showed before the compaction item is folded into a ledger
 * summary at once: the summary stands for that exact range (its `seqs`), the originals stay in the
 * archive, searchable and readable with the recall tools, and the compaction item itself opens the
 * window the model sees. The summary's text says so; the compaction's content is encrypted.
 */
import type { LedgerEntry } from '../../store/store-types.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { LedgerPort } from '../port.js'

/** Who the compaction summaries are recorded as written by. */
export const COMPACTION_MODEL = 'openai-compaction'

/** The summarizer of a compaction fold: no model call, a note naming the compaction item. */
const noteFor =
  (seq: number): Summarizer =>
  () => ({
    text: `Earlier conversation compacted by the model provider into the compaction item at seq ${seq} (its content is encrypted; the original items stay in the archive).`,
    model: COMPACTION_MODEL,
  })

/**
 * Folds what the window shows before the newest compaction item among `entries` into a summary.
 *
 * @param port - the session
 * @param entries - the entries an append just wrote
 * @returns whether a compaction item was among them
 */
export async function foldCompaction(port: LedgerPort, entries: readonly LedgerEntry[]): Promise<boolean> {
  const compaction = entries.findLast((e) => (e.message as { type?: unknown }).type === 'compaction')
  if (compaction === undefined) return false
  await port.summarize(noteFor(compaction.seq), { before: compaction.seq })
  return true
}
