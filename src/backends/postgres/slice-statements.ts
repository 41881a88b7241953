/**
 * The SQLite store's statements (`src/db/statements.ts`), answered from a {@link Slice} instead of a
 * file: each does what its SQL does, over the rows the slice holds, and throws {@link SliceMiss} when the
 * answer could depend on rows it does not hold. Writes change the slice and are written back by
 * `flush.ts`. This is what lets the PostgreSQL backend run the SQLite backend's operations unchanged —
 * the same append, window, pin, edit and summary code — so both backends keep one semantics.
 *
 * Statements only the reads use (the window, history, listings) are not here: the PostgreSQL backend
 * reads those with its own queries (`reads.ts`), and calling them on a slice is an error.
 */
import type { Statements, STATEMENTS } from '../../db/statements.js'
import type { Callable, StatementSpec } from '../../db/typed-statement.js'
import { SliceMiss, type Slice, type SliceRow } from './slice.js'

type ParamsOf<S> = S extends StatementSpec<infer P, unknown> ? P : never
type RowOf<S> = S extends StatementSpec<unknown[], infer R> ? R : never
type Specs = typeof STATEMENTS

interface Impl<S> {
  get?: (...args: ParamsOf<S>) => RowOf<S> | undefined
  all?: (...args: ParamsOf<S>) => RowOf<S>[]
  run?: (...args: ParamsOf<S>) => number | undefined
}

/** One emulated statement: `run` returns the rows changed (as better-sqlite3's `changes`). */
function emulate<K extends keyof Specs>(name: K, impl: Impl<Specs[K]>): Callable<Specs[K]> {
  const missing = (method: string) => () => {
    throw new Error(`the PostgreSQL backend does not run ${name}.${method} on a snapshot`)
  }
  const run = impl.run
  return {
    get: impl.get ?? missing('get'),
    all: impl.all ?? missing('all'),
    run:
      run === undefined
        ? missing('run')
        : (...args: ParamsOf<Specs[K]>) => ({ changes: run(...args) ?? 1, lastInsertRowid: 0 }),
  } as unknown as Callable<Specs[K]>
}

const b = (v: number | boolean): number => (v === true || v === 1 ? 1 : 0)

/** The entry columns of a held row (its body must be held). */
function entryOf(slice: Slice, seq: number, what: string) {
  const r = slice.fullRow(seq, what)
  return {
    seq: r.seq,
    uid: r.uid,
    body: r.body,
    tokens: r.tokens,
    pinned: r.pinned,
    kept: r.kept,
    created_at: r.created_at,
    window_body: r.window_body,
    window_tokens: r.window_tokens,
    repeat_of: r.repeat_of,
    late: r.late,
  }
}

/**
 * The statements over one slice.
 *
 * @param slice - the slice
 * @returns the statements, as the store's operations call them
 */
export function sliceStatements(slice: Slice): Statements {
  const sessionRow = () => {
    const s = slice.session
    if (s === undefined) return undefined
    const last: SliceRow | undefined =
      slice.count === 0 ? undefined : slice.row(slice.count - 1, 'the session')
    const summary = s.summary === null ? undefined : slice.summary(s.summary, 'the session')
    return {
      pk: s.pk,
      id: s.id,
      created_at: s.created_at,
      metadata: s.metadata,
      boundary: s.boundary,
      version: s.version,
      kept_count: s.kept_count,
      kept_tokens: s.kept_tokens,
      kept_first: s.kept_first,
      summary: s.summary,
      summary_tokens: summary?.tokens ?? null,
      limits: s.limits,
      format: s.format,
      message_count: slice.count,
      total_tokens: last?.cum_tokens ?? 0,
      // A branch's newest row may be the one it forked at: its time is the parent's, not the branch's.
      updated_at: Math.max(s.updated_at, last?.owner === undefined ? (last?.created_at ?? 0) : 0),
      parent: s.parent,
      fork_seq: s.fork_seq,
      kind: s.kind,
      last_role: last?.role ?? null,
      last_has_tool_use: last?.has_tool_use ?? null,
      last_has_tool_result: last?.has_tool_result ?? null,
      last_plain_user: last?.plain_user ?? null,
      last_trim_point: last?.trim_point ?? null,
      last_pair_start: last?.pair_start ?? null,
    }
  }
  const session = (pk: number, what: string) => {
    const s = slice.sessionFor(pk, what)
    slice.sessionChanged = true
    return s
  }
  const inRange = (seq: number): boolean => seq >= 0 && seq < slice.count
  /** Whether a summary is an ancestor's (read on a branch: its `session` is another's). */
  const inheritedSummary = (x: { session?: number }): boolean =>
    x.session !== undefined && x.session !== slice.session?.pk
  const seqsOf = (json: string): number[] => JSON.parse(json) as number[]
  /** The kept rows up to `limit`, checking they are all held. */
  const firstKept = (limit: number, what: string): number[] => {
    const kept = slice.keptRows().filter((s) => s <= slice.keptUpTo)
    if (kept.length < limit && slice.keptUpTo !== Infinity) throw new SliceMiss(`${what}: kept rows`)
    return kept.slice(0, Math.max(0, limit))
  }
  const calls = slice.calls
  const isOpen = (c: { result_seq: number | null }) => c.result_seq === null
  /** Calls by id, latest use first (ties: the later call). */
  const byIdLatest = (id: string) =>
    calls.filter((c) => c.tool_use_id === id).sort((x, y) => y.use_seq - x.use_seq || order(y) - order(x))
  // Calls in insertion order: read ones by id, new ones (negative ids) after them, in the order made.
  const order = (c: { id: number }) => (c.id > 0 ? c.id : Number.MAX_SAFE_INTEGER / 2 - c.id)

  const st: Statements = {
    // ---- the window planner's statements (view-statements.ts)
    keptSeqs: emulate('keptSeqs', {
      all: () => {
        if (!slice.allKept) throw new SliceMiss('keptSeqs: every kept row')
        return slice.keptRows()
      },
    }),
    keptTotals: emulate('keptTotals', {
      get: () => {
        if (!slice.allKept) throw new SliceMiss('keptTotals: every kept row')
        let count = 0
        let tokens = 0
        for (const s of slice.keptRows()) {
          const r = slice.row(s, 'keptTotals')
          count++
          tokens += r.window_tokens ?? r.tokens
        }
        return { count, tokens }
      },
    }),
    firstKept: emulate('firstKept', { all: (_pk, limit) => firstKept(limit, 'firstKept') }),
    keptAt: emulate('keptAt', {
      get: (_pk, offset) => firstKept(offset + 1, 'keptAt')[offset],
    }),
    anyKept: emulate('anyKept', {
      get: () => {
        if (slice.keptRows().length > 0) return 1
        if (slice.keptUpTo === Infinity) return undefined
        throw new SliceMiss('anyKept')
      },
    }),
    recheckSeqs: emulate('recheckSeqs', {
      all: () => {
        if (!slice.recheckAll) throw new SliceMiss('recheckSeqs: every marked row')
        const out: number[] = []
        for (const [seq, r] of slice.rows) if (r.recheck === 1) out.push(seq)
        return out.sort((x, y) => x - y)
      },
    }),
    firstSettled: emulate('firstSettled', {
      get: () => {
        if (!slice.settledRead) throw new SliceMiss('firstSettled')
        let min: number | undefined
        for (const [seq, r] of slice.rows)
          if (r.kept === 1 && r.recheck === 0 && (min === undefined || seq < min)) min = seq
        // Rows not held are as read: none of them is below the earliest settled row read.
        const read = slice.settledFirst
        if (read === undefined || (min !== undefined && min <= read)) return min
        const r = slice.row(read, 'firstSettled')
        if (r.kept === 1 && r.recheck === 0) return read
        throw new SliceMiss('firstSettled: settled rows after a changed one')
      },
    }),
    pinnedIn: emulate('pinnedIn', {
      all: (_pk, from, to) => {
        slice.covers(from, to, 'pinnedIn')
        const out: number[] = []
        for (let s = Math.max(0, from); s < Math.min(to, slice.count); s++)
          if (slice.row(s, 'pinnedIn').pinned === 1) out.push(s)
        return out
      },
    }),
    pinnedCount: emulate('pinnedCount', {}),
    corrections: emulate('corrections', {
      all: (_pk, from, to) => {
        slice.covers(from, to, 'corrections')
        const out: { seq: number; delta: number }[] = []
        for (let s = Math.max(0, from); s < Math.min(to, slice.count); s++) {
          const r = slice.row(s, 'corrections')
          if (r.window_tokens !== null) out.push({ seq: s, delta: r.window_tokens - r.tokens })
        }
        return out
      },
    }),
    tailCorrection: emulate('tailCorrection', {}),
    cumAt: emulate('cumAt', {
      get: (_pk, seq) => (inRange(seq) ? slice.row(seq, 'cumAt').cum_tokens : undefined),
    }),
    firstTrimPoint: emulate('firstTrimPoint', {
      get: (_pk, from, to) => slice.firstWhere(from, to, (r) => r.trim_point === 1, 'firstTrimPoint'),
    }),
    lastTrimPoint: emulate('lastTrimPoint', {
      get: (_pk, from, to) => slice.lastWhere(from, to, (r) => r.trim_point === 1, 'trim', 'lastTrimPoint'),
    }),
    lastPairStart: emulate('lastPairStart', {
      get: (_pk, from, to) => slice.lastWhere(from, to, (r) => r.pair_start === 1, 'pair', 'lastPairStart'),
    }),
    lastPlainUser: emulate('lastPlainUser', {
      get: (_pk, from, to) =>
        slice.lastWhere(from, to, (r) => r.trim_point === 1 && r.plain_user === 1, 'plain', 'lastPlainUser'),
    }),
    firstPlainUser: emulate('firstPlainUser', {
      get: (_pk, from) => {
        const plain = (r: SliceRow) => r.trim_point === 1 && r.plain_user === 1
        if (from !== 0) return slice.firstWhere(from, slice.count, plain, 'firstPlainUser')
        if (!slice.firstPlainRead) throw new SliceMiss('firstPlainUser')
        // The first one read, unless a held row before it became one (only appended rows can).
        let first = slice.firstPlain
        for (const [seq, r] of slice.rows) if (plain(r) && (first === undefined || seq < first)) first = seq
        return first
      },
    }),
    firstPairStart: emulate('firstPairStart', {
      get: (_pk, from, to) => slice.firstWhere(from, to, (r) => r.pair_start === 1, 'firstPairStart'),
    }),
    linksOfUses: emulate('linksOfUses', {
      all: ({ seqs }) => {
        const out: { use_seq: number; result_seq: number }[] = []
        for (const s of seqsOf(seqs)) {
          slice.linked(s, 'linksOfUses')
          for (const c of calls)
            if (c.use_seq === s && c.result_seq !== null) out.push({ use_seq: s, result_seq: c.result_seq })
        }
        return out
      },
    }),
    linksOfResults: emulate('linksOfResults', {
      all: ({ seqs }) => {
        const out: { use_seq: number; result_seq: number }[] = []
        for (const s of seqsOf(seqs)) {
          slice.linked(s, 'linksOfResults')
          for (const c of calls) if (c.result_seq === s) out.push({ use_seq: c.use_seq, result_seq: s })
        }
        return out
      },
    }),
    factsOfSeqs: emulate('factsOfSeqs', {
      all: ({ seqs }) =>
        seqsOf(seqs)
          .filter(inRange)
          .map((s) => {
            const r = slice.row(s, 'factsOfSeqs')
            return {
              seq: s,
              kept: r.kept,
              recheck: r.recheck,
              pinned: r.pinned,
              window_tokens: r.window_tokens ?? r.tokens,
            }
          }),
    }),
    firstSplitPoint: emulate('firstSplitPoint', {
      get: (_pk, from, to) =>
        slice.firstWhere(
          from,
          to,
          (r) =>
            r.has_tool_result === 0 && (r.has_tool_use === 0 || r.pair_start === 1 || r.trim_point === 1),
          'firstSplitPoint',
        ),
    }),
    usesOfResult: emulate('usesOfResult', {
      all: (_pk, resultSeq) => {
        slice.linked(resultSeq, 'usesOfResult')
        return calls.filter((c) => c.result_seq === resultSeq).map((c) => c.use_seq)
      },
    }),
    crossingResults: emulate('crossingResults', {
      all: (_pk, lo, hi) => {
        for (let s = Math.max(0, lo); s < Math.min(hi, slice.count); s++) slice.linked(s, 'crossingResults')
        return calls
          .filter(
            (c) =>
              c.use_seq >= lo &&
              c.use_seq < hi &&
              c.result_seq !== null &&
              (c.result_seq < lo || c.result_seq >= hi),
          )
          .map((c) => c.result_seq as number)
      },
    }),
    crossingUses: emulate('crossingUses', {
      all: (_pk, lo, hi) => {
        for (let s = Math.max(0, lo); s < Math.min(hi, slice.count); s++) slice.linked(s, 'crossingUses')
        return calls
          .filter(
            (c) =>
              c.result_seq !== null &&
              c.result_seq >= lo &&
              c.result_seq < hi &&
              (c.use_seq < lo || c.use_seq >= hi),
          )
          .map((c) => c.use_seq)
      },
    }),

    // ---- sessions
    sessionById: emulate('sessionById', {
      get: (id) => {
        if (id !== slice.sessionId) throw new SliceMiss(`sessionById: session "${id}"`)
        return sessionRow()
      },
    }),
    sessionByPk: emulate('sessionByPk', {
      get: (pk) => (slice.session?.pk === pk ? sessionRow() : undefined),
    }),
    insertSession: emulate('insertSession', {
      run: (id, createdAt, updatedAt, metadata, format) => {
        if (id !== slice.sessionId || slice.session !== undefined || slice.nextPk === undefined)
          throw new SliceMiss(`insertSession: session "${id}"`)
        slice.session = {
          pk: slice.nextPk,
          id,
          created_at: createdAt,
          updated_at: updatedAt,
          metadata,
          boundary: 0,
          version: 0,
          kept_count: 0,
          kept_tokens: 0,
          kept_first: null,
          summary: null,
          limits: null,
          format,
          revision: 0,
          parent: null,
          fork_seq: null,
          kind: 'root',
          fork_version: null,
          fork_trim_point: null,
          fork_pair_start: null,
          fork_summary: null,
          fork_summary_ended_at: null,
          fork_summary_end_reason: null,
          fork_tokens: null,
          forked_at: null,
          fork_actor: null,
          fork_reason: null,
        }
        slice.sessionChanged = true
        return 1
      },
    }),
    sessionBoundary: emulate('sessionBoundary', {
      run: (boundary, updatedAt, pk) => {
        const s = session(pk, 'sessionBoundary')
        s.boundary = boundary
        s.updated_at = updatedAt
        s.version++
        return 1
      },
    }),
    sessionTouch: emulate('sessionTouch', {
      run: (updatedAt, pk) => {
        const s = session(pk, 'sessionTouch')
        s.updated_at = updatedAt
        s.version++
        return 1
      },
    }),
    setSessionLimits: emulate('setSessionLimits', {
      run: (limits, pk) => {
        session(pk, 'setSessionLimits').limits = limits
        return 1
      },
    }),
    setSessionMetadata: emulate('setSessionMetadata', {
      run: (metadata, pk) => {
        session(pk, 'setSessionMetadata').metadata = metadata
        slice.metadataChanged = true
        return 1
      },
    }),
    setSessionSummary: emulate('setSessionSummary', {
      run: (summary, updatedAt, pk) => {
        const s = session(pk, 'setSessionSummary')
        if (summary !== null) slice.summary(summary, 'setSessionSummary')
        s.summary = summary
        s.updated_at = updatedAt
        s.version++
        return 1
      },
    }),
    setKeptTotals: emulate('setKeptTotals', {
      run: (count, tokens, first, pk) => {
        const s = session(pk, 'setKeptTotals')
        s.kept_count = count
        s.kept_tokens = tokens
        s.kept_first = first
        return 1
      },
    }),
    setKeptTokens: emulate('setKeptTokens', {
      run: (delta, pk) => {
        const s = slice.sessionFor(pk, 'setKeptTokens')
        if (s.kept_tokens === null) return 0
        session(pk, 'setKeptTokens').kept_tokens = s.kept_tokens + delta
        return 1
      },
    }),
    allSessions: emulate('allSessions', {}),

    // ---- summaries
    insertSummary: emulate('insertSummary', {
      run: (
        pk,
        uid,
        replaces,
        regenerates,
        fromBoundary,
        toBoundary,
        seqs,
        messageCount,
        body,
        tokens,
        model,
        promptHash,
        createdAt,
        text,
      ) => {
        slice.sessionFor(pk, 'insertSummary')
        const id = slice.freeSummaryIds.shift()
        if (id === undefined) throw new SliceMiss('insertSummary: an id for a new summary')
        slice.summaries.set(id, {
          id,
          uid,
          replaces,
          regenerates,
          from_boundary: fromBoundary,
          to_boundary: toBoundary,
          seqs,
          message_count: messageCount,
          body,
          tokens,
          model,
          prompt_hash: promptHash,
          created_at: createdAt,
          ended_at: null,
          end_reason: null,
          text,
        })
        slice.insertedSummaries.add(id)
        return 1
      },
    }),
    endSummary: emulate('endSummary', {
      run: (at, reason, id) => {
        const x = slice.summary(id, 'endSummary')
        x.ended_at = at
        x.end_reason = reason
        if (inheritedSummary(x)) {
          // An ancestor's summary ends in the branch's window only: the branch's row records it.
          const s = session(slice.session?.pk ?? -1, 'endSummary')
          s.fork_summary_ended_at = at
          s.fork_summary_end_reason = reason
        } else if (!slice.insertedSummaries.has(id)) slice.changedSummaries.add(id)
        return 1
      },
    }),
    reopenSummary: emulate('reopenSummary', {
      run: (id) => {
        const x = slice.summary(id, 'reopenSummary')
        x.ended_at = null
        x.end_reason = null
        if (inheritedSummary(x)) {
          const s = session(slice.session?.pk ?? -1, 'reopenSummary')
          s.fork_summary = id
          s.fork_summary_ended_at = null
          s.fork_summary_end_reason = null
        } else if (!slice.insertedSummaries.has(id)) slice.changedSummaries.add(id)
        return 1
      },
    }),
    summaryById: emulate('summaryById', {
      get: (pk, id) => {
        slice.sessionFor(pk, 'summaryById')
        const x = slice.summaries.get(id)
        if (x === undefined && slice.summaryIds.has(id)) return undefined
        return slice.summary(id, 'summaryById')
      },
    }),
    summaryByUid: emulate('summaryByUid', {
      get: (pk, uid) => {
        slice.sessionFor(pk, 'summaryByUid')
        for (const x of slice.summaries.values()) if (x.uid === uid) return x
        throw new SliceMiss(`summaryByUid: summary ${uid}`)
      },
    }),
    summariesOf: emulate('summariesOf', {}),
    summaryCount: emulate('summaryCount', {}),

    // ---- messages
    insertMessage: emulate('insertMessage', {
      run: (
        _pk,
        seq,
        uid,
        role,
        body,
        tokens,
        cumTokens,
        pinned,
        plainUser,
        trimPoint,
        pairStart,
        hasToolUse,
        hasToolResult,
        createdAt,
        windowBody,
        windowTokens,
        repeatOf,
        late,
        text,
      ) => {
        // A trackingId not looked up is one the store just minted; the unique index refuses any other clash.
        for (const r of slice.rows.values())
          if (r.uid === uid) throw new Error(`slice: a second row with trackingId ${uid}`)
        slice.insertRow({
          seq,
          uid,
          role,
          tokens,
          cum_tokens: cumTokens,
          pinned: b(pinned),
          kept: 0,
          recheck: 0,
          plain_user: b(plainUser),
          trim_point: b(trimPoint),
          pair_start: b(pairStart),
          has_tool_use: b(hasToolUse),
          has_tool_result: b(hasToolResult),
          created_at: createdAt,
          window_tokens: windowTokens,
          repeat_of: repeatOf,
          late: b(late),
          body,
          window_body: windowBody,
          sent_as: repeatOf === null ? null : slice.row(repeatOf, 'insertMessage').uid,
          text,
        })
        return 1
      },
    }),
    messageByUid: emulate('messageByUid', {
      get: (_pk, uid) => {
        for (const [seq, r] of slice.rows) if (r.uid === uid) return entryOf(slice, seq, 'messageByUid')
        if (slice.uids.has(uid)) return undefined
        throw new SliceMiss(`messageByUid: message ${uid}`)
      },
    }),
    messageBySeq: emulate('messageBySeq', {
      get: (_pk, seq) => (inRange(seq) ? entryOf(slice, seq, 'messageBySeq') : undefined),
    }),
    newestRows: emulate('newestRows', {
      all: (_pk, limit) => {
        const out = []
        for (let s = slice.count - 1; s >= Math.max(0, slice.count - limit); s--) {
          const r = slice.fullRow(s, 'newestRows')
          if (r.sent_as === undefined) throw new SliceMiss(`newestRows: row ${s}`)
          out.push({ ...entryOf(slice, s, 'newestRows'), sent_as: r.sent_as })
        }
        return out
      },
    }),
    idsAnsweredBy: emulate('idsAnsweredBy', {
      all: (_pk, resultSeq) => {
        slice.linked(resultSeq, 'idsAnsweredBy')
        return calls.filter((c) => c.result_seq === resultSeq).map((c) => c.tool_use_id)
      },
    }),
    repeatsOf: emulate('repeatsOf', {
      all: (_pk, seq) => {
        if (slice.repeatRoot !== seq) throw new SliceMiss(`repeatsOf: the repeats of row ${seq}`)
        const out: number[] = []
        for (const [s, r] of slice.rows) if (r.repeat_of === seq) out.push(s)
        return out.sort((x, y) => x - y)
      },
    }),
    flagsBySeq: emulate('flagsBySeq', {
      get: (_pk, seq) => {
        if (!inRange(seq)) return undefined
        const r = slice.row(seq, 'flagsBySeq')
        return {
          role: r.role,
          has_tool_use: r.has_tool_use,
          has_tool_result: r.has_tool_result,
          pinned: r.pinned,
          kept: r.kept,
          plain_user: r.plain_user,
        }
      },
    }),
    setCutFlags: emulate('setCutFlags', {
      run: (trim, pair, pk, seq) => {
        if (!inRange(seq)) return 0
        slice.setRow(seq, { trim_point: trim, pair_start: pair }, 'setCutFlags')
        if (!slice.inherited(seq)) return 1
        // Inherited: only the fork-point row's flags depend on the branch's rows (the next one is its own).
        const s = session(pk, 'setCutFlags')
        if (seq !== s.fork_seq) throw new Error(`slice: cut flags of inherited seq ${seq} of a branch`)
        s.fork_trim_point = trim === 1
        s.fork_pair_start = pair === 1
        return 1
      },
    }),
    setPinned: emulate('setPinned', {
      run: (pinned, _pk, seq) => {
        if (!inRange(seq)) return 0
        slice.setRow(seq, { pinned }, 'setPinned')
        return 1
      },
    }),
    setKept: emulate('setKept', {
      run: (kept, recheck, _pk, seq) => {
        if (!inRange(seq)) return 0
        slice.setRow(seq, { kept, recheck }, 'setKept')
        return 1
      },
    }),
    setRecheck: emulate('setRecheck', {
      run: (recheck, _pk, seq) => {
        if (!inRange(seq)) return 0
        slice.setRow(seq, { recheck }, 'setRecheck')
        return 1
      },
    }),
    history: emulate('history', {}),
    window: emulate('window', {}),
    windowRowsOfSeqs: emulate('windowRowsOfSeqs', {
      all: ({ seqs }) =>
        seqsOf(seqs)
          .filter(inRange)
          .map((s) => {
            const r = slice.fullRow(s, 'windowRowsOfSeqs')
            return { seq: s, body: r.window_body ?? r.body, pinned: r.pinned }
          }),
    }),
    unkeepRange: emulate('unkeepRange', {
      run: (_pk, from, to) => {
        if (!slice.allKept) slice.covers(from, to, 'unkeepRange')
        let changes = 0
        for (const s of slice.keptRows())
          if (s >= from && s < to) {
            slice.setRow(s, { kept: 0, recheck: 0 }, 'unkeepRange')
            changes++
          }
        return changes
      },
    }),
    setWindowBody: emulate('setWindowBody', {
      run: (body, tokens, _pk, seq) => {
        if (!inRange(seq)) return 0
        slice.setRow(seq, { window_body: body, window_tokens: tokens }, 'setWindowBody')
        return 1
      },
    }),
    setBody: emulate('setBody', {
      run: (body, text, _pk, seq) => {
        if (!inRange(seq)) return 0
        // The owner's row: its bytes change for every session that sees it, and their window forms of it go
        // (an inherited row's form is the branch's own: gone with its tokens, as every other branch's).
        const erased = slice.inherited(seq)
          ? { window_body: null, window_tokens: null }
          : { window_body: null }
        slice.setRow(seq, { body, text, ...erased }, 'setBody')
        return 1
      },
    }),

    // ---- tool calls
    insertToolCall: emulate('insertToolCall', {
      run: (_pk, toolUseId, name, useSeq) => {
        slice.insertCall({ tool_use_id: toolUseId, name, use_seq: useSeq, result_seq: null, status: null })
        return 1
      },
    }),
    // A session has at most one open call per id (a second is refused): a held open call is the one.
    openCallById: emulate('openCallById', {
      get: (_pk, id) => {
        if (calls.some((c) => c.tool_use_id === id && isOpen(c))) return 1
        slice.byId(id, 'openCallById')
        return undefined
      },
    }),
    answerToolCall: emulate('answerToolCall', {
      run: (resultSeq, status, _pk, id) => {
        if (!calls.some((c) => c.tool_use_id === id && isOpen(c))) slice.byId(id, 'answerToolCall')
        const call = byIdLatest(id).find(isOpen)
        if (call === undefined) return 0
        call.result_seq = resultSeq
        call.status = status
        if (call.id > 0) slice.changedCalls.add(call.id)
        return 1
      },
    }),
    madeCall: emulate('madeCall', {
      get: (_pk, id) => {
        slice.byId(id, 'madeCall')
        return byIdLatest(id)[0]?.name
      },
    }),
    // The snapshot reads every open call of the session (snapshot-query.ts, `call_rows`).
    openCalls: emulate('openCalls', {
      all: () =>
        calls
          .filter(isOpen)
          .sort((x, y) => order(x) - order(y))
          .map((c) => ({ tool_use_id: c.tool_use_id, name: c.name })),
    }),

    // ---- logs
    insertEdit: emulate('insertEdit', {
      run: (_pk, seq, kind, actor, reason, at, body) => {
        slice.edits.push({ seq, kind, actor, reason, at, body })
        return 1
      },
    }),
    eraseEditBodies: emulate('eraseEditBodies', {
      run: (_pk, seq) => {
        for (const e of slice.edits) if (e.seq === seq) e.body = null
        slice.erasedEdits.add(seq)
        return 1
      },
    }),
    edits: emulate('edits', {}),
    insertPinEvent: emulate('insertPinEvent', {
      run: (_pk, seq, action, actor, reason, at) => {
        slice.pinEvents.push({ seq, action, actor, reason, at })
        return 1
      },
    }),
    pinnedMessages: emulate('pinnedMessages', {}),
    allPinnedMessages: emulate('allPinnedMessages', {}),
    pinEvents: emulate('pinEvents', {}),
    // ---- the eviction log: written back with the slice (flush.ts); its reads are the store's own queries
    insertEviction: emulate('insertEviction', {
      run: (toSeq, fromSeq, at, cut, reason, summary, pk) => {
        const session = slice.sessionFor(pk, 'insertEviction')
        slice.insertEviction({
          to_seq: toSeq,
          version: session.version,
          from_seq: fromSeq,
          at,
          cut,
          reason,
          summary,
        })
        return 1
      },
    }),
    deleteFoldEvictions: emulate('deleteFoldEvictions', {
      run: (_pk, from, to, summary) => {
        slice.deleteFoldEvictions(from, to, summary)
        return 1
      },
    }),
    deleteEvictionsFrom: emulate('deleteEvictionsFrom', {
      run: (_pk, from) => {
        slice.deleteEvictionsFrom(from)
        return 1
      },
    }),
    renameFoldSummary: emulate('renameFoldSummary', {
      run: (to, _pk, from) => {
        slice.renameFoldSummary(to, from)
        return 1
      },
    }),
    // ---- SQLite's full-text index (PostgreSQL's is a generated column: nothing to write); every read and
    // index write throws if an operation ever reaches it on a snapshot.
    searchState: emulate('searchState', {}),
    indexMessagesAbove: emulate('indexMessagesAbove', {}),
    setWatermark: emulate('setWatermark', {}),
    clampWatermark: emulate('clampWatermark', {}),
    indexSummariesFrom: emulate('indexSummariesFrom', {}),
    indexMessage: emulate('indexMessage', {}),
    unindexMessage: emulate('unindexMessage', {}),
    unindexSession: emulate('unindexSession', {}),
    searchIndexTop: emulate('searchIndexTop', {}),
    sessionIdRange: emulate('sessionIdRange', {}),
    messagePasses: emulate('messagePasses', {}),
    searchMessages: emulate('searchMessages', {}),
    searchSummaries: emulate('searchSummaries', {}),
    hitMessage: emulate('hitMessage', {}),
    hitSummary: emulate('hitSummary', {}),
    chainLink: emulate('chainLink', {}),
    pendingIds: emulate('pendingIds', {}),
    indexAverages: emulate('indexAverages', {}),
    evictionsFrom: emulate('evictionsFrom', {}),
    evictionOf: emulate('evictionOf', {}),
    pinnedFiltered: emulate('pinnedFiltered', {}),
  }
  return st
}
