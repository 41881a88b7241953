/**
 * The statements behind `SqlLedgerView`: the window rules' questions about one session's rows, each an
 * index seek (kept rows, recheck marks, pins, trim points and tool-pair starts in a seq range, token
 * prefix sums and corrections, tool-call links). Declared like those of `statements.ts`, which prepares
 * them with the rest.
 */
import type { CorrectionRow, FactsRow, KeptTotalsRow, LinkRow } from './rows.js'
import { rows, value } from './typed-statement.js'

/** A seq range `[from, to)` of one session: (session, from, to). */
type Range = [session: number, from: number, to: number]

/** A session and a JSON array of seqs, bound by name (a value, never SQL text). */
type SeqSet = [{ s: number; seqs: string }]

/** The window planner's statements, by name. */
export const VIEW_STATEMENTS = {
  // Every kept row: only when the kept rows' marks must be derived again (other protected ranges, or a
  // session from before the marks existed), never on the steady path.
  keptSeqs: value<[session: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq',
    'seq',
  ),
  keptTotals: rows<[session: number], KeptTotalsRow>(
    `SELECT count(*) AS count, coalesce(sum(coalesce(window_tokens, tokens)), 0) AS tokens
    FROM messages WHERE session = ? AND kept = 1`,
    { count: true, tokens: true },
  ),
  firstKept: value<[session: number, limit: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq LIMIT ?',
    'seq',
  ),
  keptAt: value<[session: number, offset: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 ORDER BY seq LIMIT 1 OFFSET ?',
    'seq',
  ),
  anyKept: value<[session: number], 1>(
    'SELECT 1 AS found FROM messages WHERE session = ? AND kept = 1 LIMIT 1',
    'found',
  ),
  recheckSeqs: value<[session: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND recheck = 1 ORDER BY seq',
    'seq',
  ),
  // The earliest kept row without a recheck mark: walks the kept index past the marked ones (a few).
  firstSettled: value<[session: number], number>(
    'SELECT seq FROM messages WHERE session = ? AND kept = 1 AND recheck = 0 ORDER BY seq LIMIT 1',
    'seq',
  ),
  pinnedIn: value<Range, number>(
    'SELECT seq FROM messages WHERE session = ? AND pinned = 1 AND seq >= ? AND seq < ? ORDER BY seq',
    'seq',
  ),
  pinnedCount: value<[session: number], number>(
    'SELECT count(*) AS count FROM messages WHERE session = ? AND pinned = 1',
    'count',
  ),
  // Window-token corrections in a seq range, from the partial index of rows shown with a replacement.
  corrections: rows<Range, CorrectionRow>(
    `SELECT seq, window_tokens - tokens AS delta FROM messages
    WHERE session = ? AND window_tokens IS NOT NULL AND seq >= ? AND seq < ? ORDER BY seq`,
    { seq: true, delta: true },
  ),
  tailCorrection: value<[session: number, from: number], number>(
    `SELECT coalesce(sum(window_tokens - tokens), 0) AS correction FROM messages
    WHERE session = ? AND window_tokens IS NOT NULL AND seq >= ?`,
    'correction',
  ),
  cumAt: value<[session: number, seq: number], number>(
    'SELECT cum_tokens FROM messages WHERE session = ? AND seq = ?',
    'cum_tokens',
  ),
  firstTrimPoint: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    ORDER BY seq LIMIT 1`,
    'seq',
  ),
  lastTrimPoint: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    ORDER BY seq DESC LIMIT 1`,
    'seq',
  ),
  lastPairStart: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND pair_start = 1 AND seq >= ? AND seq < ?
    ORDER BY seq DESC LIMIT 1`,
    'seq',
  ),
  lastPlainUser: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND seq >= ? AND seq < ?
    AND plain_user = 1 ORDER BY seq DESC LIMIT 1`,
    'seq',
  ),
  firstPlainUser: value<[session: number, from: number], number>(
    `SELECT seq FROM messages WHERE session = ? AND trim_point = 1 AND plain_user = 1 AND seq >= ?
    ORDER BY seq LIMIT 1`,
    'seq',
  ),
  firstPairStart: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND pair_start = 1 AND seq >= ? AND seq < ?
    ORDER BY seq LIMIT 1`,
    'seq',
  ),
  // Batched lookups for a set of seqs, passed as one JSON array bound to @seqs (a value, never SQL text):
  // one statement per set instead of one per message, so a window with a thousand pins costs a few
  // statements. CROSS JOIN keeps the seqs as the outer loop (SQLite would otherwise walk every call of
  // the session and probe the array), and INDEXED BY picks the index the seq seeks.
  linksOfUses: rows<SeqSet, LinkRow>(
    `SELECT t.use_seq, t.result_seq FROM json_each(@seqs) j
    CROSS JOIN tool_calls t INDEXED BY tool_calls_use ON t.session = @s AND t.use_seq = j.value
    WHERE t.result_seq IS NOT NULL`,
    { use_seq: true, result_seq: true },
  ),
  linksOfResults: rows<SeqSet, LinkRow>(
    `SELECT t.use_seq, t.result_seq FROM json_each(@seqs) j
    CROSS JOIN tool_calls t INDEXED BY tool_calls_answered ON t.session = @s AND t.result_seq = j.value`,
    { use_seq: true, result_seq: true },
  ),
  factsOfSeqs: rows<SeqSet, FactsRow>(
    `SELECT m.seq, m.kept, m.recheck, m.pinned, coalesce(m.window_tokens, m.tokens) AS window_tokens
    FROM json_each(@seqs) j CROSS JOIN messages m ON m.session = @s AND m.seq = j.value`,
    { seq: true, kept: true, recheck: true, pinned: true, window_tokens: true },
  ),
  // Walks the session's rows from `from`: a run of rows a summary cannot be followed by (tool results, a
  // call without its answer next) is short, so this stops within a few rows.
  firstSplitPoint: value<Range, number>(
    `SELECT seq FROM messages WHERE session = ? AND seq >= ? AND seq < ? AND has_tool_result = 0
      AND (has_tool_use = 0 OR pair_start = 1 OR trim_point = 1) ORDER BY seq LIMIT 1`,
    'seq',
  ),
  usesOfResult: value<[session: number, resultSeq: number], number>(
    'SELECT use_seq FROM tool_calls WHERE session = ? AND result_seq = ?',
    'use_seq',
  ),
  // Calls in [lo, hi) answered outside it, and results in it whose call is outside: (session, lo, hi, lo, hi).
  crossingResults: value<[...Range, from: number, to: number], number>(
    `SELECT result_seq FROM tool_calls WHERE session = ? AND use_seq >= ? AND use_seq < ?
    AND result_seq IS NOT NULL AND (result_seq < ? OR result_seq >= ?)`,
    'result_seq',
  ),
  crossingUses: value<[...Range, from: number, to: number], number>(
    `SELECT use_seq FROM tool_calls WHERE session = ? AND result_seq >= ? AND result_seq < ?
    AND (use_seq < ? OR use_seq >= ?)`,
    'use_seq',
  ),
}
