/**
 * Writing back what operations changed in a {@link Slice}: one statement, so one round trip and one
 * transaction, that first updates the session row — only if its `revision` is still the one the slice
 * was read at (or creates it, only if no one else did) — and then, only if that succeeded, inserts and
 * updates every row the operations changed, from parameter arrays (`unnest`), never one statement per
 * row. Every other part reads the session's key from the guard, so nothing is written when it fails: the
 * caller reads a new slice and runs the operation again. The session's metadata is written only when an
 * operation changed it (an append's `sessionMetadata`), so a large one is not rewritten by every write.
 *
 * Updating the session row first also serializes writers of one session: a second writer's guard waits
 * for the first's row lock, then finds the revision moved and writes nothing. Readers never wait (MVCC).
 */
import type { Slice } from './slice.js'
import {
  BRANCH_CTES,
  branchFlushValues,
  CREATED_BRANCH,
  GUARD_BRANCH,
  LOG_CLOCK,
  PARENT_GUARD,
} from './flush-branch.js'
import { REWIND_CTES, rewindFlushValues } from './flush-rewind.js'

/** The write-back statement; see {@link flushValues} for its parameters. */
export const FLUSH_SQL = `WITH RECURSIVE guard AS (
  UPDATE context_ledger.sessions SET revision = revision + 1, updated_at = $3::bigint, boundary = $4::int,
    version = $5::int, kept_count = $6::int, kept_tokens = $7::int, kept_first = $8::int, summary = $9::int,
    limits = $10::text, metadata = CASE WHEN $100::boolean THEN $14::text ELSE metadata END,
    ${GUARD_BRANCH}
  WHERE pk = $1::int AND revision = $2::bigint AND NOT $11::boolean
  RETURNING pk
),
${PARENT_GUARD},
created AS (
  INSERT INTO context_ledger.sessions (pk, id, created_at, updated_at, metadata, boundary, version, kept_count,
    kept_tokens, kept_first, summary, limits, format, revision, ${CREATED_BRANCH.columns})
  SELECT $1::int, $12::text, $13::bigint, $3::bigint, $14::text, $4::int, $5::int, $6::int, $7::int, $8::int,
    $9::int, $10::text, $96::text, 1, ${CREATED_BRANCH.values} WHERE $11::boolean AND ${CREATED_BRANCH.gate}
  ON CONFLICT DO NOTHING
  RETURNING pk
),
ok AS (SELECT pk FROM guard UNION ALL SELECT pk FROM created),
${BRANCH_CTES},
${REWIND_CTES},
new_messages AS (
  INSERT INTO context_ledger.messages (session, seq, uid, role, body, tokens, cum_tokens, pinned, kept, recheck,
    plain_user, trim_point, pair_start, has_tool_use, has_tool_result, created_at, window_body, window_tokens,
    repeat_of, late, text)
  SELECT ok.pk, u.seq, u.uid, u.role, u.body, u.tokens, u.cum_tokens, u.pinned, u.kept, u.recheck, u.plain_user,
    u.trim_point, u.pair_start, u.has_tool_use, u.has_tool_result, u.created_at, u.window_body, u.window_tokens,
    u.repeat_of, u.late, u.text
  FROM ok CROSS JOIN unnest($15::int[], $16::text[], $17::text[], $18::text[], $19::int[], $20::bigint[],
    $21::boolean[], $22::boolean[], $23::boolean[], $24::boolean[], $25::boolean[], $26::boolean[],
    $27::boolean[], $28::boolean[], $29::bigint[], $30::text[], $31::int[], $32::int[], $33::boolean[],
    $97::text[])
    AS u(seq, uid, role, body, tokens, cum_tokens, pinned, kept, recheck, plain_user, trim_point, pair_start,
      has_tool_use, has_tool_result, created_at, window_body, window_tokens, repeat_of, late, text)
),
changed_messages AS (
  UPDATE context_ledger.messages m SET pinned = u.pinned, kept = u.kept, recheck = u.recheck,
    trim_point = u.trim_point, pair_start = u.pair_start,
    body = CASE WHEN u.set_body THEN u.body ELSE m.body END,
    text = CASE WHEN u.set_body THEN u.text ELSE m.text END,
    window_body = CASE WHEN u.set_window THEN u.window_body ELSE m.window_body END,
    window_tokens = CASE WHEN u.set_window THEN u.window_tokens ELSE m.window_tokens END
  FROM ok CROSS JOIN unnest($34::int[], $35::boolean[], $36::boolean[], $37::boolean[], $38::boolean[],
    $39::boolean[], $40::boolean[], $41::text[], $42::boolean[], $43::text[], $44::int[], $98::text[])
    AS u(seq, pinned, kept, recheck, trim_point, pair_start, set_body, body, set_window, window_body,
      window_tokens, text)
  WHERE m.session = ok.pk AND m.seq = u.seq
),
new_calls AS (
  INSERT INTO context_ledger.tool_calls (session, tool_use_id, name, use_seq, result_seq, status)
  SELECT ok.pk, u.tool_use_id, u.name, u.use_seq, u.result_seq, u.status
  FROM ok CROSS JOIN unnest($45::text[], $46::text[], $47::int[], $48::int[], $49::text[])
    WITH ORDINALITY AS u(tool_use_id, name, use_seq, result_seq, status, ord)
  ORDER BY u.ord
),
answered_calls AS (
  UPDATE context_ledger.tool_calls c SET result_seq = u.result_seq, status = u.status
  FROM ok CROSS JOIN unnest($50::bigint[], $51::int[], $52::text[]) AS u(id, result_seq, status)
  WHERE c.session = ok.pk AND c.id = u.id
),
new_pins AS (
  INSERT INTO context_ledger.pin_events (session, seq, action, actor, reason, at, version)
  SELECT ok.pk, u.seq, u.action, u.actor, u.reason, u.at, ${LOG_CLOCK}
  FROM ok CROSS JOIN unnest($53::int[], $54::text[], $55::text[], $56::text[], $57::bigint[])
    WITH ORDINALITY AS u(seq, action, actor, reason, at, ord)
  ORDER BY u.ord
),
new_edits AS (
  INSERT INTO context_ledger.message_edits (session, seq, kind, actor, reason, at, body, version)
  SELECT ok.pk, u.seq, u.kind, u.actor, u.reason, u.at, u.body, ${LOG_CLOCK}
  FROM ok CROSS JOIN unnest($59::int[], $60::text[], $61::text[], $62::text[], $63::bigint[], $64::text[])
    WITH ORDINALITY AS u(seq, kind, actor, reason, at, body, ord)
  ORDER BY u.ord
),
new_summaries AS (
  INSERT INTO context_ledger.summaries (id, session, uid, replaces, regenerates, from_boundary, to_boundary, seqs,
    message_count, body, tokens, model, prompt_hash, created_at, ended_at, end_reason, text)
  SELECT u.id, ok.pk, u.uid, u.replaces, u.regenerates, u.from_boundary, u.to_boundary, u.seqs, u.message_count,
    u.body, u.tokens, u.model, u.prompt_hash, u.created_at, u.ended_at, u.end_reason, u.text
  FROM ok CROSS JOIN unnest($65::int[], $66::text[], $67::int[], $68::int[], $69::int[], $70::int[], $71::text[],
    $72::int[], $73::text[], $74::int[], $75::text[], $76::text[], $77::bigint[], $78::bigint[], $79::text[],
    $99::text[])
    AS u(id, uid, replaces, regenerates, from_boundary, to_boundary, seqs, message_count, body, tokens, model,
      prompt_hash, created_at, ended_at, end_reason, text)
),
ended_summaries AS (
  UPDATE context_ledger.summaries x SET ended_at = u.ended_at, end_reason = u.end_reason
  FROM ok CROSS JOIN unnest($80::int[], $81::bigint[], $82::text[]) AS u(id, ended_at, end_reason)
  WHERE x.session = ok.pk AND x.id = u.id
),
-- The eviction log: a dropped summary deletes stored rows (from a seq on, and its fold's ranges), a
-- regenerated one renames them. Each is gated on its parameters (a one-time filter), so a write-back
-- that touches no stored row of the log (every append, every cut) never reads the session's log. The
-- session is named by its key $1 (what ok holds when the write goes ahead), not by ok.pk: joined to
-- a CTE the planner cannot use it in the index's condition, and reads the log of every session from the
-- seq on (measured: 135 ms for a drop beside 1,000,000 rows of other sessions' log; 2.3–2.6 ms now).
evictions_from AS (
  DELETE FROM context_ledger.eviction_log x USING ok
  WHERE $90::int IS NOT NULL AND x.session = $1::int AND x.to_seq >= $90::int
),
fold_evictions AS (
  DELETE FROM context_ledger.eviction_log x
  USING ok CROSS JOIN unnest($91::int[], $92::int[], $93::int[]) AS u(lo, hi, summary)
  WHERE cardinality($91::int[]) > 0 AND x.session = $1::int AND x.to_seq >= u.lo AND x.to_seq < u.hi
    AND x.summary = u.summary
),
renamed_evictions AS (
  UPDATE context_ledger.eviction_log x SET summary = u.now
  FROM ok CROSS JOIN unnest($94::int[], $95::int[]) AS u(stored, now)
  WHERE cardinality($94::int[]) > 0 AND x.session = $1::int AND x.summary = u.stored
    AND ($90::int IS NULL OR x.to_seq < $90::int)
    AND NOT EXISTS (SELECT 1 FROM unnest($91::int[], $92::int[], $93::int[]) AS d(lo, hi, summary)
      WHERE x.to_seq >= d.lo AND x.to_seq < d.hi AND x.summary = d.summary)
),
-- New rows carry versions past every stored row's (each cut moves the session's version first): they
-- never meet a row deleted above.
new_evictions AS (
  INSERT INTO context_ledger.eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock)
  SELECT ok.pk, u.to_seq, u.version, u.from_seq, u.at, u.cut, u.reason, u.summary, ${LOG_CLOCK}
  FROM ok CROSS JOIN unnest($83::int[], $84::int[], $85::int[], $86::bigint[], $87::text[], $88::text[],
    $89::int[]) AS u(to_seq, version, from_seq, at, cut, reason, summary)
)
SELECT count(*)::int AS written FROM ok`

/**
 * The values of {@link FLUSH_SQL} for what a slice changed.
 *
 * @param slice - the slice, after the operations ran
 * @returns the bound values, in order
 */
export function flushValues(slice: Slice): unknown[] {
  const s = slice.session
  if (s === undefined) throw new Error('slice: nothing to write without a session')
  const create = slice.original === undefined
  const col = <T>(n: number): T[][] => Array.from({ length: n }, () => [])
  const v: unknown[] = [
    s.pk,
    slice.original?.revision ?? 0,
    s.updated_at,
    s.boundary,
    s.version,
    s.kept_count,
    s.kept_tokens,
    s.kept_first,
    s.summary,
    s.limits,
    create,
    s.id,
    s.created_at,
    // Sent only when written: on creation, or when an append's fold changed it ($100).
    create || slice.metadataChanged ? s.metadata : null,
  ]
  // The searchable texts of new rows, changed bodies and new summaries: $97–$99 (after the rest).
  const texts: unknown[][] = [[], [], []]
  const m = col<unknown>(19)
  for (const seq of [...slice.inserted].sort((a, c) => a - c)) {
    const r = slice.fullRow(seq, 'write')
    const values = [
      r.seq,
      r.uid,
      r.role,
      r.body,
      r.tokens,
      r.cum_tokens,
      r.pinned === 1,
      r.kept === 1,
      r.recheck === 1,
      r.plain_user === 1,
      r.trim_point === 1,
      r.pair_start === 1,
      r.has_tool_use === 1,
      r.has_tool_result === 1,
      r.created_at,
      r.window_body,
      r.window_tokens,
      r.repeat_of,
      r.late === 1,
    ]
    values.forEach((x, i) => m[i]?.push(x))
    texts[0]?.push(r.text ?? null)
  }
  v.push(...m)
  const u = col<unknown>(11)
  for (const [seq, cols] of [...slice.changed].sort((a, c) => a[0] - c[0])) {
    const r = slice.row(seq, 'write')
    // An inherited row's state is the branch's own (`branch_rows`, flush-branch.ts).
    if (r.owner !== undefined) continue
    const setBody = cols.has('body')
    const setWindow = cols.has('window_body') || cols.has('window_tokens')
    const values = [
      seq,
      r.pinned === 1,
      r.kept === 1,
      r.recheck === 1,
      r.trim_point === 1,
      r.pair_start === 1,
      setBody,
      setBody ? r.body : null,
      setWindow,
      setWindow ? r.window_body : null,
      setWindow ? r.window_tokens : null,
    ]
    values.forEach((x, i) => u[i]?.push(x))
    texts[1]?.push(setBody ? (r.text ?? null) : null)
  }
  v.push(...u)
  const nc = col<unknown>(5)
  const ac = col<unknown>(3)
  for (const c of slice.calls) {
    if (c.id < 0) [c.tool_use_id, c.name, c.use_seq, c.result_seq, c.status].forEach((x, i) => nc[i]?.push(x))
    else if (slice.changedCalls.has(c.id)) [c.id, c.result_seq, c.status].forEach((x, i) => ac[i]?.push(x))
  }
  // New calls in the order they were made (their ids are assigned in that order).
  v.push(...nc, ...ac)
  const pe = col<unknown>(5)
  for (const e of slice.pinEvents)
    [e.seq, e.action, e.actor, e.reason, e.at].forEach((x, i) => pe[i]?.push(x))
  v.push(...pe)
  // The erased edit bodies are written by flush-branch.ts, with their rows' owners.
  v.push([...slice.erasedEdits])
  const ed = col<unknown>(6)
  for (const e of slice.edits)
    [e.seq, e.kind, e.actor, e.reason, e.at, e.body].forEach((x, i) => ed[i]?.push(x))
  v.push(...ed)
  const ns = col<unknown>(15)
  const es = col<unknown>(3)
  for (const [id, x] of slice.summaries) {
    if (slice.insertedSummaries.has(id)) {
      texts[2]?.push(x.text)
      const values = [
        x.id,
        x.uid,
        x.replaces,
        x.regenerates,
        x.from_boundary,
        x.to_boundary,
        x.seqs,
        x.message_count,
        x.body,
        x.tokens,
        x.model,
        x.prompt_hash,
        x.created_at,
        x.ended_at,
        x.end_reason,
      ]
      values.forEach((y, i) => ns[i]?.push(y))
    } else if (slice.changedSummaries.has(id))
      [x.id, x.ended_at, x.end_reason].forEach((y, i) => es[i]?.push(y))
  }
  v.push(...ns, ...es)
  const ev = col<unknown>(7)
  for (const e of slice.evictions)
    [e.to_seq, e.version, e.from_seq, e.at, e.cut, e.reason, e.summary].forEach((x, i) => ev[i]?.push(x))
  v.push(...ev)
  v.push(slice.evictionsDeletedFrom ?? null)
  const fd = col<unknown>(3)
  for (const d of slice.foldEvictionDeletes)
    for (const summary of d.summaries) [d.lo, d.hi, summary].forEach((x, i) => fd[i]?.push(x))
  v.push(...fd)
  v.push([...slice.evictionRenames.keys()], [...slice.evictionRenames.values()])
  // The session's format, written only when the write creates it (a session keeps its format).
  v.push(s.format, ...texts)
  v.push(slice.metadataChanged)
  v.push(...branchFlushValues(slice), ...rewindFlushValues(slice))
  return v
}
