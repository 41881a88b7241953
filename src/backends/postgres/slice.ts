/**
 * A slice: what one snapshot query (`snapshot-query.ts`) read of a session, held in memory while the
 * store's own operations (append, window, pins, edits, summaries — the same code the SQLite backend runs)
 * work on it through the statements of `slice-statements.ts`. It knows exactly what it covers: the rows
 * from `lo` to the end, single rows besides, which rows have every tool call of theirs, which toolUseIds
 * have every call, how many of the first kept rows, and the nearest trim points before the rows it holds.
 * A question it cannot answer from that throws {@link SliceMiss} — a bug to fix by reading more, never
 * answered by a guess. Writes change the slice and are remembered, to be written back in one statement
 * (`flush.ts`) that commits only if the session is still at the revision the slice was read at.
 */
import type { NewBranchRow } from './flush-branch.js'
import type { RewindWrite } from './flush-rewind.js'
import type { SnapshotResult, SnapshotSession, SnapshotSummary } from './snapshot-query.js'

/**
 * A summary as the session sees it: an ancestor's summary the branch showed at its fork ends where the
 * branch's window let it go (`sessions.fork_summary_*`), not where the ancestor's did.
 */
function inheritedEnd(x: SnapshotSummary, session: SnapshotSession | null): SnapshotSummary {
  if (session === null || x.session === undefined || x.session === session.pk) return x
  if (x.id !== session.fork_summary) return x
  return { ...x, ended_at: session.fork_summary_ended_at, end_reason: session.fork_summary_end_reason }
}

/** A question the slice cannot answer: it was not read. */
export class SliceMiss extends Error {
  /**
   * @param what - what was asked
   */
  constructor(what: string) {
    super(`PostgreSQL snapshot miss: ${what} was not read`)
    this.name = 'SliceMiss'
  }
}

/** A message row as the SQLite statements return it (flags 0/1), with its body when read. */
export interface SliceRow {
  seq: number
  uid: string
  role: 'user' | 'assistant'
  tokens: number
  cum_tokens: number
  pinned: number
  kept: number
  recheck: number
  plain_user: number
  trim_point: number
  pair_start: number
  has_tool_use: number
  has_tool_result: number
  created_at: number
  window_tokens: number | null
  repeat_of: number | null
  late: number
  /** Undefined when the body was not read. */
  body: string | undefined
  /** Undefined when the body was not read. */
  window_body: string | null | undefined
  /** The trackingId this occurrence was sent under (an occurrence of a message sent again); undefined when not read. */
  sent_as: string | null | undefined
  /**
   * The searchable text stored for a message of another format than Strands (null for a Strands one);
   * undefined when not read (never: only what a write sets is held).
   */
  text: string | null | undefined
  /**
   * The session whose message row it is when the slice's session inherits it (an ancestor, on a branch);
   * undefined for the session's own rows. The row's state (pin, kept mark, window form) is the branch's own.
   */
  owner?: number | undefined
}

/** One part of a branch's conversation: the seqs `[lo, hi]` whose message rows `owner` holds. */
export interface SlicePart {
  owner: number
  lo: number
  hi: number
}

/** A tool call (new ones have negative ids until written). */
export interface SliceCall {
  id: number
  tool_use_id: string
  name: string
  use_seq: number
  result_seq: number | null
  status: 'success' | 'error' | null
}

/** The session row as stored (as the snapshot reads it). */
export type SliceSession = SnapshotSession

/** A summary row. */
export type SliceSummary = SnapshotSummary

/** A pin event to insert. */
export interface NewPinEvent {
  seq: number
  action: 'pin' | 'unpin'
  actor: string
  reason: string | null
  at: number
}

/** An edit-log entry to insert. */
export interface NewEdit {
  seq: number
  kind: 'edit' | 'redact'
  actor: string
  reason: string | null
  at: number
  body: string | null
}

/** An eviction-log row to insert (see `src/store/eviction-log.ts`). */
export interface NewEviction {
  to_seq: number
  /** The session's version when the cut wrote it (after the cut moved it). */
  version: number
  from_seq: number
  at: number
  cut: string
  reason: string
  summary: number | null
}

/** A dropped fold's rows of the eviction log to delete: `to_seq` in `[lo, hi)`, of these summaries as stored. */
export interface FoldEvictionDelete {
  lo: number
  hi: number
  /** The summary ids the rows carry as stored (renames made in the slice are followed back). */
  summaries: number[]
}

/** Message columns a write may change on an existing row. */
export type RowColumn =
  | 'pinned'
  | 'kept'
  | 'recheck'
  | 'trim_point'
  | 'pair_start'
  | 'body'
  | 'text'
  | 'window_body'
  | 'window_tokens'

/** A session's slice: what was read, and what the operations changed. */
export class Slice {
  /** The session id the slice is of. */
  readonly sessionId: string
  /** The session's row (undefined when it does not exist), as changed by the operations. */
  session: SliceSession | undefined
  /** The session as read (undefined when it did not exist): what the write checks. */
  readonly original: SliceSession | undefined
  /** The key a session created by the operations gets. */
  readonly nextPk: number | undefined
  /** Message rows held, by seq. */
  readonly rows = new Map<number, SliceRow>()
  /** Messages in the session (the next seq). */
  count: number
  /** Every row from here to the end is held. */
  readonly lo: number
  /** Every kept row is held. */
  readonly allKept: boolean
  /** The kept rows up to this seq were all read (every kept row below it is held); Infinity with all of them. */
  readonly keptUpTo: number
  /** The earliest kept row without a recheck mark when read (undefined: none), and whether it was read. */
  readonly settledFirst: number | undefined
  readonly settledRead: boolean
  /** Every row marked for a recheck is held. */
  readonly recheckAll: boolean
  /** The session's first plain user message when read (undefined: none), and whether it was read. */
  readonly firstPlain: number | undefined
  readonly firstPlainRead: boolean
  /** The latest trim point, plain user message and tool-pair start before a seq. */
  readonly prevs = new Map<number, { trim: number | null; plain: number | null; pair: number | null }>()
  /** Tool calls held (every call of the rows in {@link linkSeqs}, and of the ids in {@link toolIds}). */
  readonly calls: SliceCall[] = []
  /** Rows whose every tool call is held. */
  readonly linkSeqs = new Set<number>()
  /** toolUseIds whose every call is held. */
  readonly toolIds = new Set<string>()
  /** trackingIds looked up (held if they exist). */
  readonly uids = new Set<string>()
  /** The message whose repeats were read (they are all held). */
  readonly repeatRoot: number | undefined
  /** Summaries held, by id. */
  readonly summaries = new Map<number, SliceSummary>()
  /** Summary ids looked up (held if they exist). */
  readonly summaryIds = new Set<number>()
  /** Prune candidates read (whole), ascending. */
  readonly pruned: readonly number[]
  /** Ids allocated for new summaries, not used yet. */
  readonly freeSummaryIds: number[]
  /** The branch this slice's write creates (a fork), if it does. */
  fork: NewBranchRow | undefined
  /** The rewind this slice's write makes (its abandoned branch, the rows it moves), if it does. */
  rewind: RewindWrite | undefined
  /** A branch's conversation, part by part (read by the branch dialect only; empty for a trunk). */
  readonly lineage: readonly SlicePart[]

  // What changed.
  /** Rows appended (seq ≥ the count read). */
  readonly inserted = new Set<number>()
  /** Existing rows and the columns changed on each. */
  readonly changed = new Map<number, Set<RowColumn>>()
  /** Calls changed (existing ones: answered). */
  readonly changedCalls = new Set<number>()
  /** Pin events to insert. */
  readonly pinEvents: NewPinEvent[] = []
  /** Edit-log entries to insert. */
  readonly edits: NewEdit[] = []
  /** Seqs whose earlier edit-log bodies are erased. */
  readonly erasedEdits = new Set<number>()
  /** Summaries inserted. */
  readonly insertedSummaries = new Set<number>()
  /** Summaries whose end was changed. */
  readonly changedSummaries = new Set<number>()
  /** Eviction-log rows to insert, in the order the cuts wrote them. */
  evictions: NewEviction[] = []
  /** The stored eviction-log rows from this `to_seq` on are deleted (a dropped summary); undefined: none. */
  evictionsDeletedFrom: number | undefined
  /** Stored eviction-log rows of dropped folds to delete. */
  readonly foldEvictionDeletes: FoldEvictionDelete[] = []
  /**
   * Stored eviction-log rows renamed to another summary (a regeneration), by the summary id they carry as
   * stored: the id they carry now.
   */
  readonly evictionRenames = new Map<number, number>()
  /** Whether the session row changed. */
  sessionChanged = false
  /** Whether its metadata changed (an append's `sessionMetadata`): the write-back then writes it. */
  metadataChanged = false
  private nextCallId = -1
  /** The count read: rows at or past it are new. */
  readonly countRead: number

  /**
   * @param sessionId - the session
   * @param r - what the snapshot query returned
   * @param uids - the trackingIds it was asked for
   * @param keptK - how many of the first kept rows it was asked for
   * @param summaryId - the summary it was asked for, if any
   */
  constructor(
    sessionId: string,
    r: SnapshotResult,
    uids: readonly string[],
    keptK: number,
    summaryId: number | null,
  ) {
    this.sessionId = sessionId
    this.original = r.session === null ? undefined : { ...r.session }
    this.session = r.session === null ? undefined : { ...r.session }
    this.nextPk = r.next_pk ?? undefined
    this.count = r.n
    this.countRead = r.n
    this.lo = r.lo
    // A session that does not exist yet holds nothing: every question about it is answered.
    const planned = r.planned || r.session === null
    this.allKept = r.all_kept || r.kept_k.length < keptK || r.session === null
    this.keptUpTo = this.allKept ? Infinity : (r.kept_k.at(-1) ?? -1)
    this.settledFirst = r.settled_first ?? undefined
    this.settledRead = planned
    this.recheckAll = planned
    this.firstPlain = r.first_plain ?? undefined
    this.firstPlainRead = planned
    for (const row of r.rows ?? [])
      this.rows.set(row.seq, {
        ...row,
        pinned: row.pinned ? 1 : 0,
        kept: row.kept ? 1 : 0,
        recheck: row.recheck ? 1 : 0,
        plain_user: row.plain_user ? 1 : 0,
        trim_point: row.trim_point ? 1 : 0,
        pair_start: row.pair_start ? 1 : 0,
        has_tool_use: row.has_tool_use ? 1 : 0,
        has_tool_result: row.has_tool_result ? 1 : 0,
        late: row.late ? 1 : 0,
        body: undefined,
        window_body: undefined,
        sent_as: undefined,
        text: undefined,
        owner: row.owner === undefined || row.owner === r.session?.pk ? undefined : row.owner,
      })
    for (const f of r.fulls ?? []) {
      const row = this.rows.get(f.seq)
      if (row === undefined) continue
      row.body = f.body
      row.window_body = f.window_body
      row.sent_as = f.sent_as
    }
    for (const p of r.prevs ?? []) this.prevs.set(p.x, { trim: p.trim, plain: p.plain, pair: p.pair })
    for (const c of r.calls ?? []) this.calls.push({ ...c })
    for (const s of r.link_seqs ?? []) this.linkSeqs.add(s)
    for (const id of r.tool_ids ?? []) this.toolIds.add(id)
    for (const uid of uids) this.uids.add(uid)
    this.repeatRoot = r.repeat_root ?? undefined
    this.pruned = r.pruned
    for (const x of r.summaries ?? []) this.summaries.set(x.id, inheritedEnd(x, r.session))
    if (summaryId !== null) this.summaryIds.add(summaryId)
    if (r.session?.summary != null) this.summaryIds.add(r.session.summary)
    this.freeSummaryIds = [...r.summary_ids]
    this.lineage = r.lineage ?? []
    this.fork = undefined
    this.rewind = undefined
  }

  /**
   * Whether a row of the conversation is inherited: an ancestor's message row (the branch's state on it
   * lives in `branch_rows`).
   *
   * @param seq - a held row
   * @returns true for an inherited row
   */
  inherited(seq: number): boolean {
    return this.rows.get(seq)?.owner !== undefined
  }

  /** Whether the planner's part was read (the rows from `lo` on, the recheck marks, the nearest trim points). */
  get planned(): boolean {
    return this.settledRead
  }

  /**
   * A held row.
   *
   * @param seq - its seq
   * @param what - what asks, for the miss
   * @returns the row
   * @throws SliceMiss when it is in the session but not held
   */
  row(seq: number, what: string): SliceRow {
    const row = this.rows.get(seq)
    if (row === undefined) throw new SliceMiss(`${what}: row ${seq}`)
    return row
  }

  /**
   * A row with its body.
   *
   * @param seq - its seq
   * @param what - what asks
   * @returns the row, body included
   */
  fullRow(seq: number, what: string): SliceRow & { body: string; window_body: string | null } {
    const row = this.row(seq, what)
    if (row.body === undefined || row.window_body === undefined)
      throw new SliceMiss(`${what}: the body of row ${seq}`)
    return row as SliceRow & { body: string; window_body: string | null }
  }

  /**
   * Changes columns of a held row, remembering them.
   *
   * @param seq - the row
   * @param values - the new values
   * @param what - what writes
   */
  setRow(seq: number, values: Partial<Pick<SliceRow, RowColumn>>, what: string): void {
    const row = this.row(seq, what)
    Object.assign(row, values)
    if (this.inserted.has(seq)) return
    let cols = this.changed.get(seq)
    if (cols === undefined) this.changed.set(seq, (cols = new Set()))
    for (const k of Object.keys(values) as RowColumn[]) cols.add(k)
  }

  /**
   * Appends a row (at the session's count).
   *
   * @param row - the new row
   */
  insertRow(row: SliceRow): void {
    if (row.seq !== this.count) throw new Error(`slice: row ${row.seq} appended at count ${this.count}`)
    this.rows.set(row.seq, row)
    this.inserted.add(row.seq)
    this.linkSeqs.add(row.seq)
    this.count++
  }

  /**
   * Adds a tool call.
   *
   * @param call - the call, without an id
   */
  insertCall(call: Omit<SliceCall, 'id'>): void {
    this.calls.push({ ...call, id: this.nextCallId-- })
  }

  /**
   * Checks that every row of `[from, to)` is held.
   *
   * @param from - first seq
   * @param to - end (exclusive)
   * @param what - what asks
   */
  covers(from: number, to: number, what: string): void {
    const a = Math.max(0, from)
    const z = Math.min(to, this.count)
    if (a >= z) return
    if (a >= this.lo) return
    for (let s = a; s < z; s++) if (!this.rows.has(s)) throw new SliceMiss(`${what}: rows [${from}, ${to})`)
  }

  /**
   * The first row in `[from, to)` matching `pred`, walking up from `from` over held rows.
   *
   * @param from - first seq
   * @param to - end (exclusive)
   * @param pred - the test
   * @param what - what asks
   * @returns its seq, or undefined when none
   */
  firstWhere(from: number, to: number, pred: (r: SliceRow) => boolean, what: string): number | undefined {
    const z = Math.min(to, this.count)
    for (let s = Math.max(0, from); s < z; s++) {
      const row = this.rows.get(s)
      if (row === undefined) {
        if (s >= this.lo) throw new Error(`slice: row ${s} missing past lo`)
        throw new SliceMiss(`${what}: rows [${from}, ${to})`)
      }
      if (pred(row)) return s
    }
    return undefined
  }

  /**
   * The last row in `[from, to)` matching `pred`: held rows walking down from `to`, then the nearest
   * match read before the lowest of them.
   *
   * @param from - first seq
   * @param to - end (exclusive)
   * @param pred - the test
   * @param kind - which nearest match stands for what was not read
   * @param what - what asks
   * @returns its seq, or undefined when none
   */
  lastWhere(
    from: number,
    to: number,
    pred: (r: SliceRow) => boolean,
    kind: 'trim' | 'plain' | 'pair',
    what: string,
  ): number | undefined {
    const lo = Math.max(0, from)
    for (let s = Math.min(to, this.count) - 1; s >= lo; s--) {
      const row = this.rows.get(s)
      if (row === undefined) {
        const prev = this.prevs.get(s + 1)
        if (prev === undefined) throw new SliceMiss(`${what}: rows [${from}, ${to})`)
        const found = prev[kind]
        return found !== null && found >= lo ? found : undefined
      }
      if (pred(row)) return s
    }
    return undefined
  }

  /**
   * Every tool call of `seq` is held.
   *
   * @param seq - a row
   * @param what - what asks
   */
  linked(seq: number, what: string): void {
    if (!this.linkSeqs.has(seq) && seq >= 0 && seq < this.count)
      throw new SliceMiss(`${what}: the tool calls of row ${seq}`)
  }

  /**
   * Every call with `id` is held.
   *
   * @param id - a toolUseId
   * @param what - what asks
   */
  byId(id: string, what: string): void {
    if (!this.toolIds.has(id) && !this.calls.some((c) => c.id < 0 && c.tool_use_id === id))
      throw new SliceMiss(`${what}: the calls with toolUseId ${id}`)
  }

  /**
   * The kept rows held, ascending; every kept row below {@link keptUpTo} is among them.
   *
   * @returns their seqs
   */
  keptRows(): number[] {
    const out: number[] = []
    for (const [seq, row] of this.rows) if (row.kept === 1) out.push(seq)
    return out.sort((a, b) => a - b)
  }

  /**
   * A summary held.
   *
   * @param id - its id
   * @param what - what asks
   * @returns its row
   */
  summary(id: number, what: string): SliceSummary {
    const x = this.summaries.get(id)
    if (x === undefined) throw new SliceMiss(`${what}: summary ${id}`)
    return x
  }

  /**
   * The session's row; the session must exist.
   *
   * @param pk - the key asked for
   * @param what - what asks
   * @returns the row
   */
  sessionFor(pk: number, what: string): SliceSession {
    if (this.session === undefined || this.session.pk !== pk) throw new SliceMiss(`${what}: session ${pk}`)
    return this.session
  }

  /**
   * A cut's row of the eviction log.
   *
   * @param row - the row; its version is the session's as the cut left it
   */
  insertEviction(row: NewEviction): void {
    this.evictions.push(row)
  }

  /**
   * Deletes the eviction log from a seq on: the rows written in this slice now, the stored ones at the
   * write-back.
   *
   * @param from - the first `to_seq` deleted
   */
  deleteEvictionsFrom(from: number): void {
    this.evictions = this.evictions.filter((e) => e.to_seq < from)
    this.evictionsDeletedFrom = Math.min(from, this.evictionsDeletedFrom ?? from)
  }

  /**
   * Deletes a dropped fold's rows of the eviction log with `to_seq` in `[lo, hi)`.
   *
   * @param lo - the first `to_seq`
   * @param hi - past the last
   * @param summary - the summary the rows name (now)
   */
  deleteFoldEvictions(lo: number, hi: number, summary: number): void {
    this.evictions = this.evictions.filter((e) => !(e.to_seq >= lo && e.to_seq < hi && e.summary === summary))
    this.foldEvictionDeletes.push({ lo, hi, summaries: this.storedSummaryIds(summary) })
  }

  /**
   * Renames the summary a fold's rows of the eviction log name (a regeneration).
   *
   * @param to - the new summary
   * @param from - the summary the rows name now
   */
  renameFoldSummary(to: number, from: number): void {
    for (const e of this.evictions) if (e.summary === from) e.summary = to
    for (const stored of this.storedSummaryIds(from)) this.evictionRenames.set(stored, to)
  }

  /** The summary ids stored rows carry that name `summary` now, after the renames made in this slice. */
  private storedSummaryIds(summary: number): number[] {
    const ids = [...this.evictionRenames].filter(([, now]) => now === summary).map(([stored]) => stored)
    if (!this.evictionRenames.has(summary)) ids.push(summary)
    return ids
  }

  /** Whether anything was changed (a write is due). */
  get dirty(): boolean {
    return (
      this.sessionChanged ||
      this.rewind !== undefined ||
      this.inserted.size > 0 ||
      this.changed.size > 0 ||
      this.changedCalls.size > 0 ||
      this.calls.some((c) => c.id < 0) ||
      this.pinEvents.length > 0 ||
      this.edits.length > 0 ||
      this.erasedEdits.size > 0 ||
      this.insertedSummaries.size > 0 ||
      this.changedSummaries.size > 0 ||
      this.evictions.length > 0 ||
      this.evictionsDeletedFrom !== undefined ||
      this.foldEvictionDeletes.length > 0 ||
      this.evictionRenames.size > 0
    )
  }
}
