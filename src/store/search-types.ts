/**
 * The public types of recall (docs/api.md, "Recall"): search options and hits, the eviction log's rows,
 * and the options of `evictions()`.
 */
import type { EvictionCut, EvictionReason } from './eviction-log.js'
import type { SummaryEndReason } from './summaries.js'

export type { EvictionCut, EvictionReason } from './eviction-log.js'

/** Options of `ContextStore.search()`. Filters combine with AND; each is left out when undefined. */
export interface SearchOptions {
  /** Only this session. */
  sessionId?: string | undefined
  /** Only messages of this role (summaries count as `'user'`). */
  role?: 'user' | 'assistant' | undefined
  /** Only pinned (`true`) or unpinned (`false`) messages. */
  pinned?: boolean | undefined
  /** Only what is in the window now (`true`) or what left it (`false`). */
  inWindow?: boolean | undefined
  /** Only messages that call or answer a tool of this name. */
  toolName?: string | undefined
  /**
   * Leave out messages that call or answer these tools. Default: the recall tools (`search_history`,
   * `read_history`), so a model does not find its own searches; `[]` leaves nothing out.
   */
  excludeTools?: readonly string[] | undefined
  /** Appended (or, for a summary, made) at or after this instant. */
  since?: Date | number | undefined
  /** Appended (or made) strictly before this instant. */
  until?: Date | number | undefined
  /** At most this many hits, 1–1000. Default 20. */
  limit?: number | undefined
  /** Skip this many of the best hits first (paging). Default 0. */
  offset?: number | undefined
  /**
   * `'plain'` (default): the query is words and `"quoted phrases"`, taken literally. `'fts5'`: FTS5's
   * query syntax (`AND`, `OR`, `NOT`, `NEAR()`, `prefix*`, `"phrases"`); a syntax error is `INVALID_QUERY`.
   */
  syntax?: 'plain' | 'fts5' | undefined
  /** For plain queries: every word must match (`'all'`, default) or any (`'any'`, ranked by bm25). */
  match?: 'all' | 'any' | undefined
  /** Whether summaries are searched too (their text). Default true. */
  summaries?: boolean | undefined
  /**
   * Whether summaries that left the window — replaced by a newer one, regenerated, dropped, evicted —
   * are searched too. Default true (each such hit says why, in `ended`); the `search_history` tool
   * passes false, so a model is not handed a summary that was taken back.
   */
  endedSummaries?: boolean | undefined
}

/** One thing a search found: a message of the archive, or a summary. Best first (lowest `score`). */
export interface SearchHit {
  /** Its session. */
  readonly sessionId: string
  /** `'message'`, or `'summary'` for a summary's text. */
  readonly kind: 'message' | 'summary'
  /** The message's seq; for a summary, the first seq it stands for. */
  readonly seq: number
  /** The message's (or summary's) tracking id. */
  readonly trackingId: string
  /** The message's role (`'user'` for a summary). */
  readonly role: 'user' | 'assistant'
  /** bm25 as FTS5 computes it: negative, lower is better (ordered ascending). */
  readonly score: number
  /** The text around the matches, the matched words in `**bold**`, `…` where text was left out. */
  readonly snippet: string
  /** Whether it is in the window now. */
  readonly inWindow: boolean
  /** Whether it is pinned (never for a summary). */
  readonly pinned: boolean
  /**
   * For a message a fold took out of the window: the summary it was folded into (follow its chain for
   * the one that stands for it now). For a summary hit: the summary's id.
   */
  readonly summaryId?: number
  /**
   * For a summary hit: why it left the window, when it did — `'replaced'` (folded into a newer one),
   * `'regenerated'`, `'dropped'` (taken back: its text no longer stands for anything), `'evicted'`.
   */
  readonly ended?: SummaryEndReason
  /** When it was appended (or the summary made). */
  readonly createdAt: Date
}

/** One row of the eviction log: a run of consecutive seqs one cut took out of the window. */
export interface EvictionRecord {
  /** The session. */
  readonly sessionId: string
  /** First seq of the run. */
  readonly fromSeq: number
  /** Last seq of the run (inclusive). */
  readonly toSeq: number
  /** When the cut happened. */
  readonly at: Date
  /** How the messages left. */
  readonly cut: EvictionCut
  /** Why the cut happened. */
  readonly reason: EvictionReason
  /** For a fold: the summary the messages were folded into. */
  readonly summaryId?: number
  /**
   * For a rewind (`cut: 'rewind'`): the abandoned branch that holds the messages now (absent once it was
   * deleted).
   */
  readonly abandonedId?: string
  /**
   * For a row a branch inherits: the ancestor whose cut it was, before the branch forked (its own log
   * holds the row; `version` is that session's).
   */
  readonly inheritedFrom?: string
  /** The session's version after the cut: orders the cuts of a session. */
  readonly version: number
}

/** Options of `ContextStore.evictions()`. */
export interface EvictionsOptions {
  /** The first row returned is the first whose run ends at or after this seq. Default 0. */
  fromSeq?: number | undefined
  /** At most this many rows, 1–10000. Default 100. */
  limit?: number | undefined
}
