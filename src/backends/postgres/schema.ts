/**
 * The PostgreSQL ledger's tables — the only file drizzle-kit reads for `migrations-pg/` (run
 * `npm run db:generate:pg` after changing it; released migrations are never edited). They mirror the
 * SQLite schema (`src/db/schema.ts`, whose comments say what each column means) in the schema
 * `context_ledger`, with PostgreSQL's types: booleans for flags, `bigint` milliseconds for times, text for
 * bodies (stored byte for byte as appended, never normalized as `jsonb` would). Three differences:
 *
 * - a message is keyed by `(session, seq)` itself (no surrogate id: PostgreSQL has no rowid to reuse);
 * - `sessions.revision` counts every write of the session: each write is one statement that commits only
 *   if the revision is still the one its plan was read at (see `src/backends/postgres/flush.ts`);
 * - `identity` marks the schema as a ledger's (PostgreSQL has no `application_id` / `user_version`).
 */
import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgSchema,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core'

/** The characters of a body's text that search indexes on PostgreSQL (at most 4 bytes each: < 1 MB). */
export const SEARCH_TEXT_CHARS = 200_000

/** PostgreSQL's `tsvector` (drizzle has no built-in type for it): read by SQL only, never selected. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * The indexed words of a row: `context_ledger.search_vector(body, text)` (migration 0004). A row whose
 * `text` is not null — a message or summary of another format than Strands, whose format module derived
 * its searchable text at append — is indexed by that text; any other by its body's text,
 * `context_ledger.search_vector(body)` (migration 0001): `context_ledger.search_text(body)` (the same text
 * as SQLite's view `search_text`), parsed with the `english` configuration: Snowball's English stemmer, as
 * SQLite's index uses the Porter stemmer, so `replicate` finds `replication` on both; `simple` would not
 * stem. English also drops stop words (`the`, `is` …), which FTS5 indexes: see docs/postgres.md. Only the
 * first {@link SEARCH_TEXT_CHARS} characters are parsed, and of those the longest prefix whose tsvector
 * fits in 1 MB: a longer message (strings may be 16 MB) must not make its append fail.
 */
const storedSearchVector = sql`"context_ledger"."search_vector"("body", "text")`

/** The PostgreSQL schema (namespace) every table lives in. */
export const ledgerSchema = pgSchema('context_ledger')

/** One row: what marks the schema as a context-ledger and how many migrations it has had. */
export const identity = ledgerSchema.table('identity', {
  /** Always 1: the table holds one row. */
  id: smallint('id').primaryKey(),
  /** `0x434c4447` (`'CLDG'`), as SQLite ledgers' `application_id`. */
  applicationId: integer('application_id').notNull(),
  /** Migrations applied (as SQLite ledgers' `user_version`). */
  schemaVersion: integer('schema_version').notNull(),
  /**
   * The ledger's log clock (SQLite's `search_state.log_clock`): a counter every fork, and every rewind that
   * makes an abandoned branch at a new fork point, bumps by one in its statement; nothing takes it back (a
   * delete must not: an entry written after a deleted fork would look older than the next fork). Pin-log
   * and edit-log entries record it (`version`); a new branch's `fork_version` is its value after the bump.
   */
  logClock: integer('log_clock').notNull().default(0),
})

/** One row per conversation. */
export const sessions = ledgerSchema.table(
  'sessions',
  {
    pk: integer('pk').primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    metadata: text('metadata'),
    boundary: integer('boundary').notNull().default(0),
    version: integer('version').notNull().default(0),
    keptCount: integer('kept_count'),
    keptTokens: integer('kept_tokens'),
    keptFirst: integer('kept_first'),
    summary: integer('summary'),
    limits: text('limits'),
    /** The session's message format, fixed by its first append; null for `'strands'` (as SQLite's). */
    format: text('format'),
    /** Incremented by every write of the session (appends too): what a write checks before it commits. */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    // Branches (docs/design.md, "Branches"), as SQLite's migration 0010: a branch's conversation is its
    // parent's up to and including `fork_seq`, then its own rows. Null on a root.
    /** The parent session's pk, or null for a root. */
    parent: integer('parent'),
    /** The last seq inherited from the parent (inclusive), or null for a root. */
    forkSeq: integer('fork_seq'),
    /** `'root'`, `'fork'` or `'abandoned'` (the rows a rewind took out of its parent). */
    kind: text('kind', { enum: ['root', 'fork', 'abandoned'] })
      .notNull()
      .default('root'),
    /** When the branch was forked (or abandoned), ms since the epoch; null for a root. */
    forkedAt: bigint('forked_at', { mode: 'number' }),
    /** Who forked or rewound, or null. */
    forkActor: text('fork_actor'),
    /** Why, or null. */
    forkReason: text('fork_reason'),
    /**
     * The log clock (`identity.log_clock`) right after the fork bumped it: the ancestors' log entries the
     * branch inherits are those recorded below it.
     */
    forkVersion: integer('fork_version'),
    /** The token prefix sum through `fork_seq`: the inherited total. */
    forkTokens: bigint('fork_tokens', { mode: 'number' }),
    /** The cut flags of the fork-point row as the branch sees them (they depend on the branch's next row). */
    forkTrimPoint: boolean('fork_trim_point'),
    forkPairStart: boolean('fork_pair_start'),
    /** The ancestor's summary the branch's window showed at the fork (never copied), or null. */
    forkSummary: integer('fork_summary'),
    /** When and why the inherited summary left the branch's window (null while it shows it). */
    forkSummaryEndedAt: bigint('fork_summary_ended_at', { mode: 'number' }),
    forkSummaryEndReason: text('fork_summary_end_reason', {
      enum: ['replaced', 'regenerated', 'dropped', 'evicted'],
    }),
  },
  // A session's children, by fork point: what a copy-down, a rewind and deleteSession look for.
  (t) => [index('sessions_children').on(t.parent, t.forkSeq)],
)

/** The archive: one row per message, never deleted by eviction. */
export const messages = ledgerSchema.table(
  'messages',
  {
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    uid: text('uid').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    body: text('body').notNull(),
    tokens: integer('tokens').notNull(),
    cumTokens: bigint('cum_tokens', { mode: 'number' }).notNull(),
    pinned: boolean('pinned').notNull().default(false),
    kept: boolean('kept').notNull().default(false),
    recheck: boolean('recheck').notNull().default(false),
    plainUser: boolean('plain_user').notNull(),
    trimPoint: boolean('trim_point').notNull(),
    pairStart: boolean('pair_start').notNull(),
    hasToolUse: boolean('has_tool_use').notNull(),
    hasToolResult: boolean('has_tool_result').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    windowBody: text('window_body'),
    repeatOf: integer('repeat_of'),
    late: boolean('late').notNull().default(false),
    windowTokens: integer('window_tokens'),
    /** The searchable text of a message of another format than Strands; null for a Strands body. */
    text: text('text'),
    /** The row's indexed words, kept by PostgreSQL itself (stored generated column). */
    searchVector: tsvector('search_vector').generatedAlwaysAs(() => storedSearchVector),
  },
  (t) => [
    primaryKey({ name: 'messages_pkey', columns: [t.session, t.seq] }),
    uniqueIndex('messages_session_uid').on(t.session, t.uid),
    index('messages_pinned')
      .on(t.session, t.seq)
      .where(sql`${t.pinned}`),
    index('messages_kept')
      .on(t.session, t.seq)
      .where(sql`${t.kept}`),
    index('messages_recheck')
      .on(t.session, t.seq)
      .where(sql`${t.recheck}`),
    index('messages_window_tokens')
      .on(t.session, t.seq, t.tokens, t.windowTokens)
      .where(sql`${t.windowTokens} IS NOT NULL`),
    index('messages_cut_points')
      .on(t.session, t.seq, t.trimPoint, t.pairStart, t.plainUser)
      .where(sql`${t.trimPoint} OR ${t.pairStart}`),
    // Occurrences of a message sent again: a redaction erases them all (SQLite walks the session instead).
    index('messages_repeats')
      .on(t.session, t.repeatOf)
      .where(sql`${t.repeatOf} IS NOT NULL`),
    index('messages_search').using('gin', t.searchVector),
  ],
)

/** Tool-pair links: which message asked for a tool call and which answered it. */
export const toolCalls = ledgerSchema.table(
  'tool_calls',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    toolUseId: text('tool_use_id').notNull(),
    name: text('name').notNull(),
    useSeq: integer('use_seq').notNull(),
    resultSeq: integer('result_seq'),
    status: text('status', { enum: ['success', 'error'] }),
  },
  (t) => [
    index('tool_calls_use').on(t.session, t.useSeq),
    index('tool_calls_answered')
      .on(t.session, t.resultSeq)
      .where(sql`${t.resultSeq} IS NOT NULL`),
    // Every call by id (the open ones are a prefix of nothing: a result looks its call up by id whether
    // it waits or not, so one index serves both).
    index('tool_calls_by_id').on(t.session, t.toolUseId, t.useSeq),
  ],
)

/** Every pin and unpin: who, when, why. */
export const pinEvents = ledgerSchema.table(
  'pin_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    action: text('action', { enum: ['pin', 'unpin'] }).notNull(),
    actor: text('actor').notNull(),
    reason: text('reason'),
    at: bigint('at', { mode: 'number' }).notNull(),
    /** The session's `version` when written (null: before branches): a branch inherits up to its fork's. */
    version: integer('version'),
  },
  (t) => [index('pin_events_message').on(t.session, t.seq, t.id)],
)

/** Edits and redactions (see the SQLite schema). */
export const messageEdits = ledgerSchema.table(
  'message_edits',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    kind: text('kind', { enum: ['edit', 'redact'] }).notNull(),
    actor: text('actor').notNull(),
    reason: text('reason'),
    at: bigint('at', { mode: 'number' }).notNull(),
    body: text('body'),
    /** The session's `version` when written (null: before branches); see `pin_events`. */
    version: integer('version'),
  },
  (t) => [index('message_edits_message').on(t.session, t.seq, t.id)],
)

/** Summaries (see the SQLite schema). */
export const summaries = ledgerSchema.table(
  'summaries',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    uid: text('uid').notNull(),
    replaces: integer('replaces'),
    regenerates: integer('regenerates'),
    fromBoundary: integer('from_boundary').notNull(),
    toBoundary: integer('to_boundary').notNull(),
    seqs: text('seqs').notNull(),
    messageCount: integer('message_count').notNull(),
    body: text('body').notNull(),
    tokens: integer('tokens').notNull(),
    model: text('model'),
    promptHash: text('prompt_hash').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    endedAt: bigint('ended_at', { mode: 'number' }),
    endReason: text('end_reason', { enum: ['replaced', 'regenerated', 'dropped', 'evicted'] }),
    /** The searchable text of a summary of another format than Strands; null for a Strands body. */
    text: text('text'),
    /** The summary's indexed words, as messages'. */
    searchVector: tsvector('search_vector').generatedAlwaysAs(() => storedSearchVector),
  },
  (t) => [
    index('summaries_search').using('gin', t.searchVector),
    uniqueIndex('summaries_session_uid').on(t.session, t.uid),
    index('summaries_session').on(t.session, t.id),
  ],
)

/**
 * The eviction log (see the SQLite schema, migration 0008): one row per run of consecutive seqs that one
 * cut took out of the window, and one per kept row a cut released, written in the cut's write-back.
 * Keyed so that "why and when did seq N last leave" is one index descent: the first row with
 * `to_seq >= N` (newest `version` first among equal `to_seq`) that starts at or before N.
 */
export const evictionLog = ledgerSchema.table(
  'eviction_log',
  {
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    toSeq: integer('to_seq').notNull(),
    /** The session's version after the cut: orders a session's cuts. */
    version: integer('version').notNull(),
    fromSeq: integer('from_seq').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    cut: text('cut').notNull(),
    reason: text('reason').notNull(),
    /** The summary the messages were folded into, for a fold. */
    summary: integer('summary'),
    /**
     * The ledger's log clock when the row was written (`identity.log_clock`): a branch inherits an
     * ancestor's rows written below its fork's clock (null: written before branches, older than any).
     */
    clock: integer('clock'),
  },
  (t) => [primaryKey({ columns: [t.session, t.toSeq, t.version] })],
)

/**
 * A branch's own window state on a row it inherits (see the SQLite schema, migration 0010): the message row
 * stays its owner's; what the branch (`session`) made of it — pin, kept mark, recheck, window form — lives
 * here. Keyed by `(session, seq)` itself (PostgreSQL has no rowid to reuse).
 */
export const branchRows = ledgerSchema.table(
  'branch_rows',
  {
    session: integer('session')
      .notNull()
      .references(() => sessions.pk),
    seq: integer('seq').notNull(),
    /** The session whose `messages` row this is (an ancestor of `session`). */
    owner: integer('owner').notNull(),
    pinned: boolean('pinned').notNull().default(false),
    kept: boolean('kept').notNull().default(false),
    recheck: boolean('recheck').notNull().default(false),
    windowBody: text('window_body'),
    windowTokens: integer('window_tokens'),
  },
  (t) => [
    primaryKey({ name: 'branch_rows_pkey', columns: [t.session, t.seq] }),
    index('branch_rows_kept')
      .on(t.session, t.seq)
      .where(sql`${t.kept}`),
    index('branch_rows_recheck')
      .on(t.session, t.seq)
      .where(sql`${t.recheck}`),
    index('branch_rows_pinned')
      .on(t.session, t.seq)
      .where(sql`${t.pinned}`),
    index('branch_rows_owner').on(t.owner, t.seq),
  ],
)
