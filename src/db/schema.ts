/**
 * The ledger's tables — the only file drizzle-kit reads. Generate a migration after changing it with
 * `npm run db:generate`; released migrations are never edited.
 *
 * Eviction never deletes a row: it moves `sessions.boundary` and re-marks the `kept` rows (messages
 * before the boundary that stay in the window: pins, protected ranges, tool partners, anchors). Their
 * count and window tokens are kept on the session, so nothing has to read every kept row (or every pin).
 */
import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** One row per conversation. */
export const sessions = sqliteTable(
  'sessions',
  {
    /** Compact integer key used by every other table. */
    pk: integer('pk').primaryKey({ autoIncrement: true }),
    /** The caller's session id. */
    id: text('id').notNull().unique(),
    /** Milliseconds since the epoch. */
    createdAt: integer('created_at').notNull(),
    /** Milliseconds since the epoch, bumped by window and pin changes (appends show in the newest row). */
    updatedAt: integer('updated_at').notNull(),
    /** Free-form JSON the caller attached, or null. */
    metadata: text('metadata'),
    /** First seq of the window's tail; every message at or after it is in the window. */
    boundary: integer('boundary').notNull().default(0),
    // The message count and token total are the newest message's seq + 1 and cum_tokens: not stored here,
    // so an append never rewrites the session row.
    /** Incremented by every window or pin change: a cheap change detector for readers. */
    version: integer('version').notNull().default(0),
    // The kept rows' aggregates and the protected range they were derived for. Written only when kept rows
    // change (never by a plain append). Null on sessions from before they existed: the next plan derives them.
    /** Number of kept rows (all of them lie before the boundary). */
    keptCount: integer('kept_count'),
    /** Window tokens of the kept rows (a replacement's own count where the window shows one). */
    keptTokens: integer('kept_tokens'),
    /** The first-N range the kept rows' recheck marks were derived for; another range re-derives them all. */
    keptFirst: integer('kept_first'),
    /**
     * The summary the window shows between the kept rows and the tail (`summaries.id`), or null. It stands
     * for messages that left the window; it leaves with the next cut that moves the boundary.
     */
    summary: integer('summary'),
    /**
     * The window limits last applied to the session, as JSON (`{"windowSize":40,"first":0,"last":0,…}`), or
     * null before the first. Written only when they change; read by tools that explain a window.
     */
    limits: text('limits'),
    /**
     * The message format every message of the session is in (`src/formats/`), fixed by its first append;
     * null for `'strands'` (every session from before formats existed).
     */
    format: text('format'),
    // Branches (docs/design.md, "Branches"): a branch's conversation is its parent's up to and including
    // `fork_seq`, then its own rows (seqs continuing from `fork_seq + 1`). Null on a root.
    /** The parent session's pk, or null for a root. */
    parent: integer('parent'),
    /** The last seq inherited from the parent (inclusive), or null for a root. */
    forkSeq: integer('fork_seq'),
    /** `'root'`, `'fork'` (made by `fork`) or `'abandoned'` (the rows a `rewind` took out of its parent). */
    kind: text('kind', { enum: ['root', 'fork', 'abandoned'] })
      .notNull()
      .default('root'),
    /** When the branch was forked (or abandoned by a rewind), ms since the epoch; null for a root. */
    forkedAt: integer('forked_at'),
    /** Who forked or rewound (`'user'`, `'agent'`, any name), or null. */
    forkActor: text('fork_actor'),
    /** Why, free text, or null. */
    forkReason: text('fork_reason'),
    /**
     * The ledger's log clock at the fork (`search_state.log_clock`, a counter every fork bumps and no
     * delete takes back: `src/db/log-clock.ts`), read right after the fork's bump. Every pin-log, edit-log
     * and eviction-log entry records the clock when it was written (`version`, `clock`), so the entries an
     * ancestor wrote before the fork (clock below this) are the branch's too and later ones are not. A
     * clock shared by every session (not each session's own `version`) stays comparable when a rewind
     * re-parents branches: a branch sees an ancestor's entries older than every fork on the way down to it.
     */
    forkVersion: integer('fork_version'),
    /** The token prefix sum through `fork_seq` (`cum_tokens` of the fork-point row): the inherited total. */
    forkTokens: integer('fork_tokens'),
    /**
     * The cut flags of the fork-point row as this branch sees them (they depend on the row after it, which
     * is the branch's): Strands' trim point and the tool-pair start.
     */
    forkTrimPoint: integer('fork_trim_point', { mode: 'boolean' }),
    forkPairStart: integer('fork_pair_start', { mode: 'boolean' }),
    /**
     * The summary an ancestor wrote that the branch's window showed right after the fork (`summaries.id`,
     * the ancestor's row: never copied), or null. `summaries()` of the branch lists it as inherited, with
     * when and why it left the branch's window (the ancestor's row records the ancestor's window only).
     */
    forkSummary: integer('fork_summary'),
    /** When the inherited summary left the branch's window, or null while it shows it (or never did). */
    forkSummaryEndedAt: integer('fork_summary_ended_at'),
    /** Why it left: as `summaries.end_reason`. */
    forkSummaryEndReason: text('fork_summary_end_reason', {
      enum: ['replaced', 'regenerated', 'dropped', 'evicted'],
    }),
  },
  // A session's children, by fork point: what a copy-on-write, a rewind and deleteSession look for.
  (t) => [index('sessions_children').on(t.parent, t.forkSeq)],
)

/** The archive: one row per message, never deleted by eviction. */
export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    /** Dense per-session position, from 0. */
    seq: integer('seq').notNull(),
    /** The message's trackingId. */
    uid: text('uid').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    /** The message JSON exactly as appended. */
    body: text('body').notNull(),
    tokens: integer('tokens').notNull(),
    /** Inclusive prefix sum of `tokens` in the session: budget cuts bisect it (it only grows with seq). */
    cumTokens: integer('cum_tokens').notNull(),
    pinned: integer('pinned', { mode: 'boolean' }).notNull().default(false),
    /** Before the boundary yet still in the window. Meaningless at or after the boundary. */
    kept: integer('kept', { mode: 'boolean' }).notNull().default(false),
    /**
     * A kept row whose protection the next plan must derive again: a last-N row, a lead or anchor, the
     * newest turn's opening, a row near the session's opening, or one an unpin may have released. Kept
     * rows without it are protected by a pin or the first-N range and are trusted as they are.
     */
    recheck: integer('recheck', { mode: 'boolean' }).notNull().default(false),
    /** User message with neither toolUse nor toolResult. */
    plainUser: integer('plain_user', { mode: 'boolean' }).notNull(),
    /** A valid window start (Strands' trim point). Set for a user toolUse once its answer arrives. */
    trimPoint: integer('trim_point', { mode: 'boolean' }).notNull(),
    /** Assistant toolUse answered by the next message: where the tool-pair fallback may cut. */
    pairStart: integer('pair_start', { mode: 'boolean' }).notNull(),
    hasToolUse: integer('has_tool_use', { mode: 'boolean' }).notNull(),
    hasToolResult: integer('has_tool_result', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    /**
     * What the window shows instead of `body` (e.g. with oversized tool results truncated), or null.
     * The archive keeps `body` untouched.
     */
    windowBody: text('window_body'),
    /**
     * Seq of the earlier message of the session that this one repeats: a message re-sent under a trackingId
     * the session already holds (not a retry of its newest messages) is a new occurrence with a new id.
     */
    repeatOf: integer('repeat_of'),
    /**
     * Holds a toolResult for a call that was no longer waiting (answered by a repair row or an earlier
     * result): archived as sent, shown in the window as text (`window_body`), linked to no call.
     */
    late: integer('late', { mode: 'boolean' }).notNull().default(false),
    /** Tokens of `window_body` (null without one, or when it was set before this column existed). */
    windowTokens: integer('window_tokens'),
    /**
     * The searchable text, derived by the session's format at append; null for a Strands body, whose text
     * the view `search_text` derives from the body itself.
     */
    text: text('text'),
  },
  (t) => [
    uniqueIndex('messages_session_seq').on(t.session, t.seq),
    uniqueIndex('messages_session_uid').on(t.session, t.uid),
    index('messages_pinned')
      .on(t.session, t.seq)
      .where(sql`${t.pinned} = 1`),
    index('messages_kept')
      .on(t.session, t.seq)
      .where(sql`${t.kept} = 1`),
    index('messages_recheck')
      .on(t.session, t.seq)
      .where(sql`${t.recheck} = 1`),
    // Rows the window counts differently from the archive: the tail's token total is the prefix-sum
    // difference corrected by a seek over the replaced rows in it.
    index('messages_window_tokens')
      .on(t.session, t.seq, t.tokens, t.windowTokens)
      .where(sql`${t.windowTokens} IS NOT NULL`),
    // One partial index for every place a window may start (trim points and tool-pair starts), covering
    // the flags the cut queries filter on: a turn dirties one leaf of it instead of one leaf of two.
    index('messages_cut_points')
      .on(t.session, t.seq, t.trimPoint, t.pairStart, t.plainUser)
      .where(sql`${t.trimPoint} = 1 OR ${t.pairStart} = 1`),
  ],
)

/** Tool-pair links: which message asked for a tool call and which answered it. */
export const toolCalls = sqliteTable(
  'tool_calls',
  {
    id: integer('id').primaryKey(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    toolUseId: text('tool_use_id').notNull(),
    name: text('name').notNull(),
    /** Seq of the message holding the toolUse. */
    useSeq: integer('use_seq').notNull(),
    /** Seq of the message holding the toolResult; null while the call is pending. */
    resultSeq: integer('result_seq'),
    status: text('status', { enum: ['success', 'error'] }),
  },
  (t) => [
    index('tool_calls_use').on(t.session, t.useSeq),
    // Partial: a call enters it once, when answered, instead of twice (as NULL, then moved).
    index('tool_calls_answered')
      .on(t.session, t.resultSeq)
      .where(sql`${t.resultSeq} IS NOT NULL`),
    index('tool_calls_open')
      .on(t.session, t.toolUseId)
      .where(sql`${t.resultSeq} IS NULL`),
  ],
)

/** Every pin and unpin: who, when, why. */
export const pinEvents = sqliteTable(
  'pin_events',
  {
    id: integer('id').primaryKey(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    action: text('action', { enum: ['pin', 'unpin'] }).notNull(),
    /** `'user'`, `'agent'`, `'rule'`, `'append'` (flag on the way in) or any caller-chosen name. */
    actor: text('actor').notNull(),
    reason: text('reason'),
    at: integer('at').notNull(),
    /**
     * The ledger's log clock when the event was written (`sessions.fork_version`; null: before branches
     * existed): a branch sees its ancestors' events from before its fork.
     */
    version: integer('version'),
  },
  (t) => [index('pin_events_message').on(t.session, t.seq, t.id)],
)

/**
 * The audit of changes to messages after they were appended: edits (the window shows the new form; the
 * archive keeps the original in `messages.body`) and redactions (the original's bytes are gone from the
 * archive; this row says who and when).
 */
export const messageEdits = sqliteTable(
  'message_edits',
  {
    id: integer('id').primaryKey(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    kind: text('kind', { enum: ['edit', 'redact'] }).notNull(),
    /** Who made the change: `'user'`, `'strands'` (an edit seen in `agent.messages`), or any name. */
    actor: text('actor').notNull(),
    reason: text('reason'),
    at: integer('at').notNull(),
    /** An edit's new form; null for a redaction, and for edits a later redaction erased. */
    body: text('body'),
    /** The ledger's log clock when the edit was written (null: before branches existed); see `pin_events`. */
    version: integer('version'),
  },
  (t) => [index('message_edits_message').on(t.session, t.seq, t.id)],
)

/**
 * Summaries: each stands for messages that left the window — the exact seqs it folded — and, when it folded
 * an earlier summary too, names it (`replaces`), so the chain leads down to the raw messages. The raw
 * messages never change. A summary is in the window while it is its session's `summary`.
 */
export const summaries = sqliteTable(
  'summaries',
  {
    id: integer('id').primaryKey(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    /** The trackingId of the summary message the window shows. */
    uid: text('uid').notNull(),
    /** The earlier summary this one folded (it was in the window when this one was made), or null. */
    replaces: integer('replaces'),
    /** The summary this one regenerated (same messages, new text), or null. */
    regenerates: integer('regenerates'),
    /** The session's boundary before the summary was written. */
    fromBoundary: integer('from_boundary').notNull(),
    /** The boundary after: the first seq of the tail that follows the summary in the window. */
    toBoundary: integer('to_boundary').notNull(),
    /**
     * The raw messages folded by this summary itself, as JSON `[[from, to], …]`: half-open seq ranges,
     * ascending. Those of the summary it replaces are that summary's.
     */
    seqs: text('seqs').notNull(),
    /** How many raw messages `seqs` holds. */
    messageCount: integer('message_count').notNull(),
    /** The summary message as the window shows it (JSON, a message of the session's format). */
    body: text('body').notNull(),
    /** The searchable text, for a session of another format than Strands; null for a Strands body. */
    text: text('text'),
    /** Its tokens, by the session's token counter: what the window counts for it. */
    tokens: integer('tokens').notNull(),
    /** Who wrote it, when known (a model id). */
    model: text('model'),
    /** SHA-256 (hex) of the system prompt and the request the summarizer was given. */
    promptHash: text('prompt_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    /** When it left the window (null while it is the session's summary, or never was). */
    endedAt: integer('ended_at'),
    /** Why it left: `replaced` (folded into a newer one), `regenerated`, `dropped`, `evicted` (a cut). */
    endReason: text('end_reason', { enum: ['replaced', 'regenerated', 'dropped', 'evicted'] }),
  },
  (t) => [
    uniqueIndex('summaries_session_uid').on(t.session, t.uid),
    index('summaries_session').on(t.session, t.id),
  ],
)

/**
 * A branch's own window state on the rows it inherits (docs/design.md, "Branches"): the message row belongs
 * to the ancestor that appended it (`owner`), and its `pinned`, `kept`, `recheck` and window replacement
 * there are the owner's; what the branch made of the row lives here, keyed by the branch (`session`) and
 * the seq. Every inherited row of the branch's window has one (a fork writes them: the window's rows, never
 * the history); an inherited row without one is out of the branch's window and shows the owner's window
 * form (the owner's changes to that form first copy the old one here: see `src/store/branches/`).
 */
export const branchRows = sqliteTable(
  'branch_rows',
  {
    id: integer('id').primaryKey(),
    /** The branch that sees the row this way. */
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    /** The session whose `messages` row this is (an ancestor of `session`). */
    owner: integer('owner').notNull(),
    pinned: integer('pinned', { mode: 'boolean' }).notNull().default(false),
    /** As `messages.kept`, in the branch. */
    kept: integer('kept', { mode: 'boolean' }).notNull().default(false),
    /** As `messages.recheck`, in the branch. */
    recheck: integer('recheck', { mode: 'boolean' }).notNull().default(false),
    /** What the branch's window shows instead of the body (as `messages.window_body`), or null. */
    windowBody: text('window_body'),
    /** Tokens of `window_body`, or null. */
    windowTokens: integer('window_tokens'),
  },
  (t) => [
    uniqueIndex('branch_rows_session_seq').on(t.session, t.seq),
    index('branch_rows_kept')
      .on(t.session, t.seq)
      .where(sql`${t.kept} = 1`),
    index('branch_rows_recheck')
      .on(t.session, t.seq)
      .where(sql`${t.recheck} = 1`),
    index('branch_rows_pinned')
      .on(t.session, t.seq)
      .where(sql`${t.pinned} = 1`),
    // A redaction clears every branch's replacement of the row; a rewind moves rows to another owner.
    index('branch_rows_owner').on(t.owner, t.seq),
  ],
)
