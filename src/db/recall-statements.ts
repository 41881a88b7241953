/**
 * The statements of recall (docs/design.md, "Recall"): full-text search over the archive and the eviction
 * log. Declared like those of `statements.ts`, which prepares them with the rest — but for those that
 * query the pending rows' temporary index (`PENDING_SEARCH_STATEMENTS`), prepared once that table exists.
 *
 * A search runs as three queries merged by score: messages of the index, summaries of the index, and the
 * messages above the index's watermark, indexed for the query in a temporary FTS5 table with the same
 * tokenizer. The filters are the same SQL in each: bound as nulls when not asked for. The text match
 * drives every plan (FTS5 gives the matching documents, each joined to its row by key).
 */
import type {
  ChainLinkRow,
  EvictionRow,
  HitMessageRow,
  HitSummaryRow,
  PinnedRow,
  SearchHitRow,
} from './rows.js'
import { LOG_CLOCK } from './log-clock.js'
import { rows, value, write } from './typed-statement.js'

/** What a search binds: the FTS5 query, and each filter or null. */
export interface SearchParams {
  /** The FTS5 query (plain input already turned into quoted phrases). */
  q: string
  /** A session's key. */
  session: number | null
  /** `'user'` or `'assistant'`. */
  role: string | null
  /** 1 or 0. */
  pinned: number | null
  /** 1 or 0. */
  in_window: number | null
  /** ms since the epoch, inclusive. */
  since: number | null
  /** ms since the epoch, exclusive. */
  until: number | null
  /** Messages that call or answer a tool of this name. */
  tool: string | null
  /** A JSON array of tool names: messages that call or answer one of them are left out. */
  skip: string | null
  /** 0: summaries that left the window (replaced, regenerated, dropped, evicted) are left out. */
  ended: number | null
  /** At most this many. */
  limit: number
}

/** The filters on a message `m` of session `s`, shared by the index's and the pending rows' queries. */
const MESSAGE_FILTERS = `(@session IS NULL OR m.session = @session)
    AND (@role IS NULL OR m.role = @role)
    AND (@pinned IS NULL OR m.pinned = @pinned)
    AND (@in_window IS NULL OR (m.seq >= s.boundary OR m.kept = 1) = @in_window)
    AND (@since IS NULL OR m.created_at >= @since)
    AND (@until IS NULL OR m.created_at < @until)
    AND (@tool IS NULL OR EXISTS (SELECT 1 FROM tool_calls c
      WHERE c.session = m.session AND c.name = @tool AND (c.use_seq = m.seq OR c.result_seq = m.seq)))
    AND (@skip IS NULL OR NOT EXISTS (SELECT 1 FROM tool_calls c
      WHERE c.session = m.session AND (c.use_seq = m.seq OR c.result_seq = m.seq)
        AND c.name IN (SELECT value FROM json_each(@skip))))`

const HIT_COLUMNS = { doc: true, score: true } as const

/** What a hit on a message is reported with, by its id. */
const HIT_MESSAGE_SELECT = `SELECT s.id AS session_id, s.pk AS session_pk, s.summary, m.seq, m.uid, m.role,
    m.pinned, (m.seq >= s.boundary OR m.kept = 1) AS in_window, m.created_at
  FROM messages m JOIN sessions s ON s.pk = m.session WHERE m.id = ?`

/** The eviction log's columns, in the order of {@link EvictionRow}. */
const EVICTION_SELECT = 'SELECT from_seq, to_seq, version, at, cut, reason, summary FROM eviction_log'

const EVICTION_COLUMNS = {
  from_seq: true,
  to_seq: true,
  version: true,
  at: true,
  cut: true,
  reason: true,
  summary: true,
} as const

/** A pinned message with its session and its latest pin event, filtered (see `pinnedMessages()`). */
const PINNED_FILTERED = `SELECT s.id AS session_id, s.format, m.seq, m.uid, m.body, m.kept, s.boundary,
      e.actor, e.reason, e.at
    FROM messages m JOIN sessions s ON s.pk = m.session
    LEFT JOIN pin_events e ON e.id = (SELECT id FROM pin_events
      WHERE session = m.session AND seq = m.seq AND action = 'pin' ORDER BY id DESC LIMIT 1)
    WHERE m.pinned = 1 AND (@session IS NULL OR m.session = @session)
      AND (@actor IS NULL OR coalesce(e.actor, 'append') = @actor)
      AND (@reason IS NULL OR instr(lower(coalesce(e.reason, '')), lower(@reason)) > 0)
      AND (@since IS NULL OR coalesce(e.at, 0) >= @since)
      AND (@until IS NULL OR coalesce(e.at, 0) < @until)`

/** What `pinnedMessages()` binds. */
export interface PinnedParams {
  /** A session's key, or null for every session. */
  session: number | null
  /** The latest pin's actor. */
  actor: string | null
  /** Text the latest pin's reason contains (letter case ignored). */
  reason: string | null
  /** Pinned at or after (ms). */
  since: number | null
  /** Pinned before (ms). */
  until: number | null
}

/** The recall statements prepared with the store's others. */
export const RECALL_STATEMENTS = {
  // The best `limit` documents of the index that match, messages only (`rowid > 0` keeps FTS5 off the
  // summaries' documents), scored by FTS5 alone: no row is joined until a candidate is among the best.
  // `lo`…`hi`: the ids of a session's first and last messages when the search is in one session (a
  // session's ids grow with its seqs), which FTS5 takes as a rowid range; else 1 … 2^53.
  searchIndexTop: rows<[{ q: string; limit: number; lo: number; hi: number }], SearchHitRow>(
    `SELECT rowid AS doc, bm25(search_index) AS score FROM search_index
    WHERE search_index MATCH @q AND rowid >= @lo AND rowid <= @hi ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  // The ids of a session's first and last messages (two seeks of its seq index).
  sessionIdRange: rows<[session: number, session2: number], { lo: number | null; hi: number | null }>(
    `SELECT (SELECT id FROM messages WHERE session = ? ORDER BY seq LIMIT 1) AS lo,
      (SELECT id FROM messages WHERE session = ? ORDER BY seq DESC LIMIT 1) AS hi`,
    { lo: true, hi: true },
  ),
  // Whether one message passes the filters (a candidate of searchIndexTop), by key.
  messagePasses: value<[SearchParams & { id: number }], number>(
    `SELECT 1 AS passes FROM messages m JOIN sessions s ON s.pk = m.session WHERE m.id = @id AND ${MESSAGE_FILTERS}`,
    'passes',
  ),
  // Messages of the index that match and pass the filters, best first: every match joined to its row
  // (when the filters reject most of the best candidates).
  searchMessages: rows<[SearchParams], SearchHitRow>(
    `SELECT f.rowid AS doc, bm25(search_index) AS score
    FROM search_index f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.pk = m.session
    WHERE search_index MATCH @q AND f.rowid > 0 AND ${MESSAGE_FILTERS}
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  // Summaries of the index that match (role user, never pinned, no tool calls; in the window while shown).
  searchSummaries: rows<[SearchParams], SearchHitRow>(
    `SELECT f.rowid AS doc, bm25(search_index) AS score
    FROM search_index f JOIN summaries x ON x.id = -f.rowid JOIN sessions s ON s.pk = x.session
    WHERE search_index MATCH @q AND f.rowid < 0
      AND (@session IS NULL OR x.session = @session)
      AND (@role IS NULL OR @role = 'user')
      AND (@pinned IS NULL OR @pinned = 0)
      AND (@in_window IS NULL OR (s.summary IS x.id) = @in_window)
      AND (@since IS NULL OR x.created_at >= @since)
      AND (@until IS NULL OR x.created_at < @until)
      AND @tool IS NULL
      AND (@ended IS NULL OR x.end_reason IS NULL)
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  hitMessage: rows<[id: number], HitMessageRow>(HIT_MESSAGE_SELECT, {
    session_id: true,
    session_pk: true,
    summary: true,
    seq: true,
    uid: true,
    role: true,
    pinned: true,
    in_window: true,
    created_at: true,
  }),
  hitSummary: rows<[id: number], HitSummaryRow>(
    `SELECT s.id AS session_id, s.pk AS session_pk, x.id, x.uid, x.seqs, x.to_boundary,
      (s.summary IS x.id) AS in_window, x.created_at, x.end_reason
    FROM summaries x JOIN sessions s ON s.pk = x.session WHERE x.id = ?`,
    {
      session_id: true,
      session_pk: true,
      id: true,
      uid: true,
      seqs: true,
      to_boundary: true,
      in_window: true,
      created_at: true,
      end_reason: true,
    },
  ),
  // One link of a session's chain of summaries, by key (the walk that finds which one stands for a seq).
  chainLink: rows<[session: number, id: number], ChainLinkRow>(
    'SELECT id, replaces, seqs, from_boundary FROM summaries WHERE session = ? AND id = ?',
    { id: true, replaces: true, seqs: true, from_boundary: true },
  ),
  // The messages above the watermark: the pending rows a search scans.
  pendingIds: value<[above: number], number>('SELECT id FROM messages WHERE id > ? ORDER BY id', 'id'),
  // FTS5's averages record: its row count and token total (varints), for scoring the pending rows.
  indexAverages: value<[], Buffer>('SELECT block FROM search_index_data WHERE id = 1', 'block'),

  // One row per run of seqs a cut took out of the window, in the cut's transaction, after the session
  // row's version moved: `version` orders the cuts of a session; `clock`, the ledger's log clock, tells a
  // branch which of its ancestors' rows are from before its fork (as the pin and edit logs' `version`).
  insertEviction: write<
    [
      toSeq: number,
      fromSeq: number,
      at: number,
      cut: string,
      reason: string,
      summary: number | null,
      session: number,
    ]
  >(
    `INSERT INTO eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock)
    SELECT pk, ?, version, ?, ?, ?, ?, ?, ${LOG_CLOCK} FROM sessions WHERE pk = ?`,
  ),
  // A dropped summary's fold is taken back: its rows go (each range of its `seqs` is a key range). A
  // rewind's row names a session in `summary` (the abandoned branch), never a summary: left alone.
  deleteFoldEvictions: write<[session: number, from: number, to: number, summary: number]>(
    "DELETE FROM eviction_log WHERE session = ? AND to_seq >= ? AND to_seq < ? AND summary = ? AND cut = 'fold'",
  ),
  // A dropped summary brings every message from its old boundary on back into the window (a rewind's
  // rows are about the conversation it took back: they stay).
  deleteEvictionsFrom: write<[session: number, from: number]>(
    "DELETE FROM eviction_log WHERE session = ? AND to_seq >= ? AND cut <> 'rewind'",
  ),
  // A regenerated summary stands for what the one it regenerates folded: the rows name the new one.
  renameFoldSummary: write<[to: number, session: number, from: number]>(
    "UPDATE eviction_log SET summary = ? WHERE session = ? AND summary = ? AND cut = 'fold'",
  ),
  evictionsFrom: rows<[session: number, fromSeq: number, limit: number], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = ? AND to_seq >= ? ORDER BY to_seq, version DESC LIMIT ?`,
    EVICTION_COLUMNS,
  ),
  // Why and when seq `n` last left the window: the first row past it that covers it (see the migration).
  // A rewind's rows are about the conversation it took back, whose seqs the session has used again.
  evictionOf: rows<[{ session: number; n: number }], EvictionRow>(
    `${EVICTION_SELECT} WHERE session = @session AND to_seq >= @n AND from_seq <= @n AND cut <> 'rewind'
    ORDER BY to_seq, version DESC LIMIT 1`,
    EVICTION_COLUMNS,
  ),

  pinnedFiltered: rows<[PinnedParams], PinnedRow>(`${PINNED_FILTERED} ORDER BY s.id, m.seq`, {
    session_id: true,
    format: true,
    seq: true,
    uid: true,
    body: true,
    kept: true,
    boundary: true,
    actor: true,
    reason: true,
    at: true,
  }),
}

/**
 * The temporary index of the pending rows (the messages above the watermark), in the connection's temp
 * schema: the same tokenizer as `search_index`, and vocabulary tables over it and over the query's words
 * (for scoring the pending rows as the index would). The pending rows' table is contentless: a search
 * needs only its inverted lists and records (snippets are made from the view). Created once per connection, before
 * {@link PENDING_SEARCH_STATEMENTS} are prepared; it never touches the ledger's file.
 */
export const CREATE_PENDING_INDEX = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_pending USING fts5(
    text, content = '', tokenize = 'porter unicode61 remove_diacritics 2', detail = full);
  CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_pending_terms USING fts5vocab(temp, search_pending, instance);
  CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_words USING fts5(
    text, tokenize = 'porter unicode61 remove_diacritics 2', detail = full);
  CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_words_terms USING fts5vocab(temp, search_words, instance);
  CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_index_rows USING fts5vocab(main, search_index, row);
  CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_snippets USING fts5(
    text, tokenize = 'porter unicode61 remove_diacritics 2', detail = full);`

/** Where a term occurs in a pending row. */
export interface InstanceRow {
  /** The document. */
  doc: number
  /** The term's position in it. */
  offset: number
}

/** The terms of one document of a temporary index, in order. */
export interface TermRow {
  /** The document. */
  doc: number
  /** The term, as the tokenizer gives it (stemmed). */
  term: string
  /** Its position in the document. */
  offset: number
}

/** The statements over the temporary index of the pending rows. */
export const PENDING_SEARCH_STATEMENTS = {
  // Contentless, so it is emptied at once: a DELETE tokenized every row again to take it out (as long
  // as filling it: ~3.6 ms with 256 rows pending).
  clearPending: write<[]>("INSERT INTO temp.search_pending (search_pending) VALUES ('delete-all')"),
  // The pending rows' text, read through the same view as the index reads it.
  fillPending: write<[above: number]>(
    'INSERT INTO temp.search_pending (rowid, text) SELECT doc, text FROM main.search_text WHERE doc > ? ORDER BY doc',
  ),
  searchPending: rows<[SearchParams], SearchHitRow>(
    `SELECT f.rowid AS doc, bm25(search_pending) AS score
    FROM temp.search_pending f JOIN main.messages m ON m.id = f.rowid JOIN main.sessions s ON s.pk = m.session
    WHERE search_pending MATCH @q AND ${MESSAGE_FILTERS}
    ORDER BY score, doc LIMIT @limit`,
    HIT_COLUMNS,
  ),
  // The hits' text for their snippets, each NUL a space: FTS5's snippet() copies the text between
  // matches as C strings, so a NUL inside a message cut what followed it up to the next match.
  clearSnippets: write<[]>('DELETE FROM temp.search_snippets'),
  // (SQL's replace() cannot: it takes char(0) for an empty pattern, so the NULs are replaced in JS.)
  hitText: value<[doc: number], string>('SELECT text FROM main.search_text WHERE doc = ?', 'text'),
  fillSnippet: write<[doc: number, text: string]>(
    'INSERT INTO temp.search_snippets (rowid, text) VALUES (?, ?)',
  ),
  // The text around the matches in every hit of the page, in one MATCH: the query's doclists are read once
  // for the page (one MATCH a hit read them once a hit — with a long OR query over a 1,000-hit page,
  // most of a search's time).
  pageSnippets: rows<[q: string], { doc: number; snippet: string }>(
    `SELECT rowid AS doc, snippet(search_snippets, 0, '**', '**', '…', 16) AS snippet
    FROM temp.search_snippets WHERE search_snippets MATCH ?`,
    { doc: true, snippet: true },
  ),
  // Where one term occurs in the pending rows: the query's terms only (fts5vocab seeks a term), from
  // which a phrase's count per document is found by position — reading every term of every pending row
  // cost ~40 µs a row, most of a search's time with 256 rows pending.
  termInstances: rows<[term: string], InstanceRow>(
    'SELECT doc, "offset" FROM temp.search_pending_terms WHERE term = ?',
    { doc: true, offset: true },
  ),
  // The pending rows' count and token total: the temporary index's averages record (as the index's).
  pendingAverages: value<[], Buffer>('SELECT block FROM temp.search_pending_data WHERE id = 1', 'block'),
  // One pending row's length in tokens (a varint): its docsize record.
  pendingDocSize: value<[doc: number], Buffer>(
    'SELECT sz FROM temp.search_pending_docsize WHERE id = ?',
    'sz',
  ),
  // How many documents of the index hold a term (one seek into the index's vocabulary).
  termDocs: value<[term: string], number>('SELECT doc FROM temp.search_index_rows WHERE term = ?', 'doc'),
  clearWords: write<[]>('DELETE FROM temp.search_words'),
  addWords: write<[doc: number, text: string]>('INSERT INTO temp.search_words (rowid, text) VALUES (?, ?)'),
  // The query's phrases as the tokenizer sees them (stemmed), phrase by phrase.
  wordTerms: rows<[], TermRow>(
    'SELECT doc, term, "offset" FROM temp.search_words_terms ORDER BY doc, "offset"',
    {
      doc: true,
      term: true,
      offset: true,
    },
  ),
}
