/**
 * A search hit from the columns either backend reads of it (src/store/search.ts on SQLite,
 * src/backends/postgres/search.ts on PostgreSQL): one shape, built in one place.
 */
import type { SearchHit } from './search-types.js'
import type { SummaryEndReason } from './summaries.js'

/** A summary that matched, as both backends read it. */
export interface SummaryHitColumns {
  readonly sessionId: string
  readonly id: number
  readonly uid: string
  /** Its `seqs` JSON (half-open ranges): the hit's seq is the first one folded. */
  readonly seqs: string
  /** Where it ends: the hit's seq when it folded no range of its own. */
  readonly toBoundary: number
  readonly score: number
  readonly snippet: string
  readonly inWindow: boolean
  readonly endReason: string | null
  readonly createdAt: number
}

/** A message that matched, as both backends read it. */
export interface MessageHitColumns {
  readonly sessionId: string
  readonly seq: number
  readonly uid: string
  readonly role: 'user' | 'assistant'
  readonly score: number
  readonly snippet: string
  readonly inWindow: boolean
  readonly pinned: boolean
  /** The summary its last departure folded it into (from the eviction log), or null. */
  readonly folded: number | null
  readonly createdAt: number
}

/**
 * The hit of a summary.
 *
 * @param c - its columns
 * @returns the hit
 */
export function summaryHit(c: SummaryHitColumns): SearchHit {
  const seqs = JSON.parse(c.seqs) as [number, number][]
  return {
    sessionId: c.sessionId,
    kind: 'summary',
    seq: seqs[0]?.[0] ?? c.toBoundary,
    trackingId: c.uid,
    role: 'user',
    score: c.score,
    snippet: c.snippet,
    inWindow: c.inWindow,
    pinned: false,
    summaryId: c.id,
    ...(c.endReason === null ? {} : { ended: c.endReason as SummaryEndReason }),
    createdAt: new Date(c.createdAt),
  }
}

/**
 * The hit of a message.
 *
 * @param c - its columns
 * @returns the hit
 */
export function messageHit(c: MessageHitColumns): SearchHit {
  return {
    sessionId: c.sessionId,
    kind: 'message',
    seq: c.seq,
    trackingId: c.uid,
    role: c.role,
    score: c.score,
    snippet: c.snippet,
    inWindow: c.inWindow,
    pinned: c.pinned,
    ...(c.folded === null ? {} : { summaryId: c.folded }),
    createdAt: new Date(c.createdAt),
  }
}
