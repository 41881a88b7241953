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

/** A summary's search row as the trunk's and a branch's statements read it. */
export interface SummaryHitRow {
  readonly id: number
  readonly uid: string
  readonly seqs: string
  readonly to_boundary: number
  readonly in_window: number
  readonly end_reason: string | null
  readonly created_at: number
}

/** A message's search row as the trunk's and a branch's statements read it. */
export interface MessageHitRow {
  readonly seq: number
  readonly uid: string
  readonly role: 'user' | 'assistant'
  readonly in_window: number
  readonly pinned: number
  readonly created_at: number
}

/** Where a search hit was found: its score and snippet. */
export interface HitFound {
  readonly score: number
  readonly snippet: string
}

/**
 * A summary hit from its row (trunk and branch searches read the same columns).
 *
 * @param sessionId - the session the hit is reported under
 * @param x - the summary's row
 * @param found - score and snippet
 * @returns the hit
 */
export function summaryRowHit(sessionId: string, x: SummaryHitRow, found: HitFound): SearchHit {
  return summaryHit({
    sessionId,
    id: x.id,
    uid: x.uid,
    seqs: x.seqs,
    toBoundary: x.to_boundary,
    score: found.score,
    snippet: found.snippet,
    inWindow: x.in_window === 1,
    endReason: x.end_reason,
    createdAt: x.created_at,
  })
}

/**
 * A message hit from its row (trunk and branch searches read the same columns).
 *
 * @param sessionId - the session the hit is reported under
 * @param m - the message's row
 * @param found - score and snippet
 * @param folded - the summary that folded it out of the window, if one did
 * @returns the hit
 */
export function messageRowHit(
  sessionId: string,
  m: MessageHitRow,
  found: HitFound,
  folded: number | null,
): SearchHit {
  return messageHit({
    sessionId,
    seq: m.seq,
    uid: m.uid,
    role: m.role,
    score: found.score,
    snippet: found.snippet,
    inWindow: m.in_window === 1,
    pinned: m.pinned === 1,
    folded,
    createdAt: m.created_at,
  })
}
