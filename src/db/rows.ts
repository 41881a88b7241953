/**
 * The rows the store's statements return, as SQLite gives them: integers for flags (0 or 1), ms since
 * the epoch for times, JSON text for bodies. `statements.ts` declares, for each statement, which of these
 * it returns and lists its columns; a test compares those lists with what SQLite reports.
 */

/** A session row as the store reads it. */
export interface SessionRow {
  pk: number
  id: string
  created_at: number
  metadata: string | null
  boundary: number
  version: number
  /** Kept rows and their window tokens; null on a session from before they were recorded. */
  kept_count: number | null
  kept_tokens: number | null
  /** The first-N range the kept rows' recheck marks were derived for; null when unknown. */
  kept_first: number | null
  /** The summary the window shows (its id), or null. */
  summary: number | null
  /** That summary's tokens, or null without one. */
  summary_tokens: number | null
  /** The window limits last applied, as JSON, or null. */
  limits: string | null
  /** The session's message format (null: `'strands'`). */
  format: string | null
  message_count: number
  total_tokens: number
  updated_at: number
  /** The parent's pk (null for a root): see docs/design.md, "Branches". */
  parent: number | null
  /** The last seq inherited from the parent (null for a root). */
  fork_seq: number | null
  /** `'root'`, `'fork'` or `'abandoned'`. */
  kind: 'root' | 'fork' | 'abandoned'
}

/** A session row with the flags of its newest message (null when it has none), as every session read returns it. */
export interface SessionForAppendRow extends SessionRow {
  last_role: 'user' | 'assistant' | null
  last_has_tool_use: number | null
  last_has_tool_result: number | null
  last_plain_user: number | null
  last_trim_point: number | null
  last_pair_start: number | null
}

/** The columns of a message row that entries are built from. */
export interface MessageRow {
  seq: number
  uid: string
  body: string
  tokens: number
  pinned: number
  kept: number
  created_at: number
  window_body: string | null
  window_tokens: number | null
  repeat_of: number | null
  late: number
}

/** One of a session's newest rows, with the trackingId a re-sent occurrence was sent under. */
export interface NewestRow extends MessageRow {
  sent_as: string | null
}

/** The flags of a message row that appends and the window rules read. */
export interface FlagsRow {
  role: 'user' | 'assistant'
  has_tool_use: number
  has_tool_result: number
  pinned: number
  kept: number
  plain_user: number
}

/** What the window planner reads about a row (see `RowFacts`). */
export interface FactsRow {
  seq: number
  kept: number
  recheck: number
  pinned: number
  window_tokens: number
}

/** A window row: just what materializing needs. */
export interface WindowRow {
  seq: number
  body: string
  pinned: number
}

/** The kept rows' count and window tokens, counted. */
export interface KeptTotalsRow {
  count: number
  tokens: number
}

/** A tool call linked to its result, by the two messages' seqs. */
export interface LinkRow {
  use_seq: number
  result_seq: number
}

/** A window-token correction: a row shown with a replacement of another size. */
export interface CorrectionRow {
  seq: number
  delta: number
}

/** An entry of the edit log. */
export interface EditRow {
  seq: number
  uid: string
  kind: 'edit' | 'redact'
  actor: string
  reason: string | null
  at: number
  body: string | null
}

/** A pinned message with its session and its latest pin event (null fields when none is recorded). */
export interface PinnedRow {
  session_id: string
  /** Its session's message format (null: `'strands'`). */
  format: string | null
  seq: number
  uid: string
  body: string
  kept: number
  boundary: number
  actor: string | null
  reason: string | null
  at: number | null
}

/** An entry of the pin log. */
export interface PinEventRow {
  session_id: string
  seq: number
  uid: string
  action: 'pin' | 'unpin'
  actor: string
  reason: string | null
  at: number
}

/** A session's key and id. */
export interface SessionKeyRow {
  pk: number
  id: string
}

/** A summary as the store reads it. */
export interface SummaryRow {
  id: number
  uid: string
  replaces: number | null
  regenerates: number | null
  from_boundary: number
  to_boundary: number
  seqs: string
  message_count: number
  body: string
  tokens: number
  model: string | null
  prompt_hash: string
  created_at: number
  ended_at: number | null
  end_reason: 'replaced' | 'regenerated' | 'dropped' | 'evicted' | null
}

/** The full-text index's watermark and the newest message id (the messages between wait for a batch). */
export interface SearchStateRow {
  indexed_to: number
  last_id: number
}

/** A document a full-text query found, with its bm25 score (lower is better). */
export interface SearchHitRow {
  doc: number
  score: number
}

/** What a hit on a message is reported with. */
export interface HitMessageRow {
  session_id: string
  session_pk: number
  summary: number | null
  seq: number
  uid: string
  role: 'user' | 'assistant'
  pinned: number
  in_window: number
  created_at: number
}

/** What a hit on a summary is reported with. */
export interface HitSummaryRow {
  session_id: string
  session_pk: number
  id: number
  uid: string
  seqs: string
  to_boundary: number
  in_window: number
  created_at: number
  end_reason: string | null
}

/** A summary of a session's current chain, as the walk that finds which one stands for a seq reads it. */
export interface ChainLinkRow {
  id: number
  replaces: number | null
  seqs: string
  from_boundary: number
}

/** One row of the eviction log. */
export interface EvictionRow {
  from_seq: number
  to_seq: number
  version: number
  at: number
  cut: string
  reason: string
  summary: number | null
}
