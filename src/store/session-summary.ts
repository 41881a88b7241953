/**
 * A session's sizes as `sessions()` and `session()` report them, from its row and four index seeks —
 * kept rows' totals, the token sum before the boundary, the tail's replacement corrections, the pin
 * count — with its metadata. Apart from the store so that a reader that needs only these (the `context-ledger sessions`
 * command) prepares these statements and nothing else.
 */
import { formatNamed } from '../formats/index.js'
import type { SessionRow, Statements } from '../db/statements.js'
import { keptTotals } from './lookup.js'
import { readSessionMetadata } from './session-metadata.js'
import type { SessionSummary } from './store-types.js'

/** The statements a session summary is read with. */
export type SummaryStatements = Pick<Statements, 'keptTotals' | 'cumAt' | 'tailCorrection' | 'pinnedCount'>

/**
 * A session's summary.
 *
 * @param st - the statements
 * @param s - the session's row (message count, token total and summary tokens included)
 * @param parentId - its parent's id, for a branch
 * @returns its summary
 */
export function toSessionSummary(
  st: SummaryStatements,
  s: SessionRow,
  parentId: string | null = null,
): SessionSummary {
  const kept = keptTotals(st, s)
  const before = s.boundary > 0 ? (st.cumAt.get(s.pk, s.boundary - 1) ?? 0) : 0
  // The tail's tokens as the window shows them: the prefix-sum difference, corrected for replacements.
  const correction = st.tailCorrection.get(s.pk, s.boundary) ?? 0
  const summary = s.summary === null ? 0 : 1
  return {
    id: s.id,
    messageCount: s.message_count,
    windowMessages: kept.count + summary + s.message_count - s.boundary,
    windowTokens: kept.tokens + (s.summary_tokens ?? 0) + s.total_tokens - before + correction,
    summaryId: s.summary ?? undefined,
    totalTokens: s.total_tokens,
    pinnedCount: st.pinnedCount.get(s.pk) ?? 0,
    boundary: s.boundary,
    createdAt: new Date(s.created_at),
    updatedAt: new Date(s.updated_at),
    format: formatNamed(s.format).name,
    metadata: readSessionMetadata(s.metadata),
    parentId: s.parent === null ? null : parentId,
    forkSeq: s.fork_seq,
    kind: s.kind,
  }
}
