/**
 * `fork()` on PostgreSQL (docs/design.md, "Branches"): the SQLite store's fork (`src/store/branches/fork.ts`,
 * `window-copy.ts`) in the backend's two round trips. The branch statement reads the parent as its
 * conversation would be had it ended at the fork point (`snapshot-branch.ts`, `fk`); the new branch's slice
 * is made from that — the parent's rows, now all inherited, with the branch's own state on the rows its
 * window shows (the parent's window restricted and made valid by the same `validStart`), the calls open at
 * the fork point as the branch's own — and its window is planned by the SQLite code (`applyPlanned`). The
 * write-back creates the session only if the parent's revision is still the one read.
 */
import { ContextLedgerError } from '../../errors.js'
import { applyPlanned } from '../../store/apply-window.js'
import type { ForkSettings } from '../../store/branches/check-options.js'
import { flagsAsNewest } from '../../store/branches/fork.js'
import { sessionNotFound } from '../../store/branches/tree.js'
import type { BranchInfo } from '../../store/branches/types.js'
import { validStart } from '../../store/branches/window-copy.js'
import type { WindowLimits } from '../../window/window-options.js'
import { Slice } from './slice.js'
import { SliceLedger, type StoreState } from './slice-ledger.js'
import type { SnapshotCall, SnapshotResult, SnapshotRow } from './snapshot-query.js'
import type { MakeSlice, ReadSpec } from './store.js'

/** A fork as the store runs it. */
export interface ForkRequest {
  /** The parent's id. */
  readonly parentId: string
  /** The checked options. */
  readonly settings: ForkSettings
  /** The new branch's id. */
  readonly id: string
  /** When (ms). */
  readonly now: number
}

/** The largest seq (the own part of a conversation reaches it). */
const END = 2 ** 31 - 1

/**
 * What a fork reads of its parent.
 *
 * @param req - the fork
 * @returns the snapshot spec
 */
export function forkSpec(req: ForkRequest): ReadSpec {
  const point = req.settings.point
  return {
    plan: 2,
    allKept: true,
    forkSeq: 'seq' in point ? storableSeq(point.seq) : null,
    forkUid: 'trackingId' in point ? point.trackingId : null,
    probe: [req.id],
  }
}

/** The largest seq a PostgreSQL ledger can hold (`messages.seq` is an `integer`). */
const MAX_SEQ = 2 ** 31 - 1

/**
 * A fork or rewind point as the snapshot statement's `integer` parameter: a seq past what a PostgreSQL
 * ledger can hold is looked up as the largest one, past every session's end like any seq the session
 * lacks, so the caller gets `MESSAGE_NOT_FOUND` naming the seq it gave instead of PostgreSQL's
 * out-of-range error.
 *
 * @param seq - the seq the caller gave (a safe non-negative integer, checked before)
 * @returns the seq, capped at the largest an `integer` holds
 */
export function storableSeq(seq: number): number {
  return Math.min(seq, MAX_SEQ)
}

/** `MESSAGE_NOT_FOUND` for a fork or rewind point the session lacks. */
export function pointNotFound(
  sessionId: string,
  point: ForkSettings['point'],
  count: number,
): ContextLedgerError<'MESSAGE_NOT_FOUND'> {
  const named = 'seq' in point ? `at seq ${point.seq}` : `with trackingId ${JSON.stringify(point.trackingId)}`
  return new ContextLedgerError(
    'MESSAGE_NOT_FOUND',
    `Session "${sessionId}" has no message ${named} (it holds ${count})`,
    { sessionId, path: point.field },
  )
}

/** The parent as read at the fork point, and where the branch's window starts. */
interface Parent {
  readonly slice: Slice
  readonly at: number
  readonly atEnd: boolean
  readonly from: number
  readonly flags: { trim: number; pair: number }
}

/** Reads the parent's slice (cut at the fork point) and the new window's start; refuses what is refused. */
function parentOf(
  req: ForkRequest,
  result: SnapshotResult,
  state: StoreState,
  uids: readonly string[],
): Parent {
  if (result.session === null) throw sessionNotFound(req.parentId)
  const full = result.full_n ?? 0
  const at = result.fork_at
  if (at === null || at >= full) throw pointNotFound(req.parentId, req.settings.point, full)
  if ((result.taken ?? []).includes(req.id))
    throw new ContextLedgerError('SESSION_EXISTS', `A session "${req.id}" already exists`, {
      sessionId: req.id,
      path: 'newSessionId',
    })
  const slice = new Slice(req.parentId, result, uids, 0, null)
  const ledger = new SliceLedger(slice, state)
  const read = ledger.st.sessionById.get(req.parentId)
  if (read === undefined) throw sessionNotFound(req.parentId)
  // The parent as it is (its whole length): the flags of the fork point as the newest row.
  const row = { ...read, message_count: full }
  const flags = flagsAsNewest(ledger, row, at)
  const atEnd = at === full - 1
  const from = atEnd ? row.boundary : validStart(ledger, row, at, flags.trim === 1)
  return { slice, at, atEnd, from, flags }
}

/** A call open at the fork point: made by then, not answered by then. */
const openAt = (c: SnapshotCall, at: number): boolean =>
  c.use_seq <= at && (c.result_seq === null || c.result_seq > at)

/** The parent's rows as the branch's: every one inherited, with the branch's state where its window shows it. */
function branchRows(p: Parent, parentPk: number, rows: readonly SnapshotRow[]): SnapshotRow[] {
  return rows
    .filter((r) => r.seq <= p.at)
    .map((r) => {
      const kept = r.kept && r.seq < p.from
      const shown = kept || r.seq >= p.from
      const fork = r.seq === p.at
      return {
        ...r,
        owner: r.owner ?? parentPk,
        pinned: shown && r.pinned,
        kept,
        recheck: kept && r.recheck,
        trim_point: fork ? p.flags.trim === 1 : r.trim_point,
        pair_start: fork ? p.flags.pair === 1 : r.pair_start,
      }
    })
}

/** The first plain user message of the branch, from the parent's (the fork point's flag is the branch's). */
function firstPlain(p: Parent, result: SnapshotResult, rows: readonly SnapshotRow[]): number | null {
  const first = result.first_plain
  if (first !== null && first < p.at) return first
  const atRow = rows.find((r) => r.seq === p.at)
  return atRow !== undefined && atRow.plain_user && p.flags.trim === 1 ? p.at : null
}

/** What the slice maker found, for the operation that runs on the slice it made. */
interface Found {
  atEnd: boolean
  depth: number
}

/**
 * A fork's two halves: the maker of the new branch's slice from its parent's read (the store's
 * `MakeSlice`), and the operation on it — the window planned with the parent's last limits when the fork
 * point is before the parent's newest message (at the newest, the window is the parent's as it is).
 *
 * @param req - the fork
 * @param state - the store's state
 * @returns both
 */
export function forkCall(
  req: ForkRequest,
  state: StoreState,
): { make: MakeSlice; op: (ledger: SliceLedger) => BranchInfo } {
  const found: Found = { atEnd: true, depth: 0 }
  return { make: forkSlice(req, state, found), op: forkOp(req, found) }
}

function forkSlice(req: ForkRequest, state: StoreState, found: Found): MakeSlice {
  return (result, _read, uids) => {
    const p = parentOf(req, result, state, uids)
    found.atEnd = p.atEnd
    found.depth = result.depth ?? 0
    const parent = p.slice.session
    if (parent === undefined || result.next_pk === null) throw sessionNotFound(req.parentId)
    const rows = branchRows(p, parent.pk, result.rows ?? [])
    const kept = rows.filter((r) => r.kept).map((r) => r.seq)
    const calls = (result.calls ?? []).filter((c) => c.use_seq <= p.at)
    const synth: SnapshotResult = {
      ...result,
      session: null,
      n: p.at + 1,
      all_kept: true,
      planned: true,
      kept_k: kept,
      settled_first: rows.find((r) => r.kept && !r.recheck)?.seq ?? null,
      first_plain: firstPlain(p, result, rows),
      rows,
      fulls: (result.fulls ?? []).filter((f) => f.seq <= p.at),
      calls: calls.filter((c) => !openAt(c, p.at)),
      link_seqs: (result.link_seqs ?? []).filter((s) => s <= p.at),
      pruned: [],
      repeat_root: null,
      lineage: [
        ...(result.lineage ?? [])
          .filter((l) => l.lo <= p.at)
          .map((l) => ({ ...l, hi: Math.min(l.hi, p.at) })),
        { owner: result.next_pk, lo: p.at + 1, hi: END },
      ],
    }
    const slice = new Slice(req.id, synth, uids, 0, null)
    const summary = p.from === parent.boundary ? parent.summary : null
    slice.session = {
      pk: result.next_pk,
      id: req.id,
      created_at: req.now,
      updated_at: req.now,
      metadata: req.settings.metadata === undefined ? parent.metadata : req.settings.metadata,
      boundary: p.from,
      version: 0,
      kept_count: p.atEnd ? parent.kept_count : null,
      kept_tokens: p.atEnd ? parent.kept_tokens : null,
      kept_first: p.atEnd ? parent.kept_first : null,
      summary,
      limits: parent.limits,
      format: parent.format,
      revision: 0,
      parent: parent.pk,
      fork_seq: p.at,
      kind: 'fork',
      fork_version: null,
      fork_trim_point: p.flags.trim === 1,
      fork_pair_start: p.flags.pair === 1,
      fork_summary: summary,
      fork_summary_ended_at: null,
      fork_summary_end_reason: null,
      fork_tokens: p.slice.row(p.at, 'fork').cum_tokens,
      forked_at: req.now,
      fork_actor: req.settings.actor,
      fork_reason: req.settings.reason,
    }
    slice.sessionChanged = true
    slice.fork = {
      parent: parent.pk,
      parentRevision: parent.revision,
      forkSeq: p.at,
      kind: 'fork',
      at: req.now,
      actor: req.settings.actor,
      reason: req.settings.reason,
      forkVersion: null,
      forkTokens: p.slice.row(p.at, 'fork').cum_tokens,
    }
    // Every row the branch's window shows gets its row of state (the window's rows, never the history's).
    for (const r of rows)
      if (r.kept || r.seq >= p.from) slice.setRow(r.seq, { pinned: r.pinned ? 1 : 0 }, 'fork')
    for (const c of calls.filter((x) => openAt(x, p.at)).sort((x, y) => x.id - y.id))
      slice.insertCall({
        tool_use_id: c.tool_use_id,
        name: c.name,
        use_seq: c.use_seq,
        result_seq: null,
        status: null,
      })
    return slice
  }
}

function forkOp(req: ForkRequest, found: Found): (ledger: SliceLedger) => BranchInfo {
  return (ledger) => {
    const s = ledger.slice.session
    if (s === undefined || s.fork_seq === null) throw new Error('fork: no branch made')
    if (!found.atEnd && s.limits !== null) {
      const row = ledger.st.sessionByPk.get(s.pk)
      if (row !== undefined) applyPlanned(ledger, row, JSON.parse(s.limits) as WindowLimits, 'apply')
    }
    return {
      sessionId: req.id,
      parentId: req.parentId,
      forkSeq: s.fork_seq,
      kind: 'fork',
      createdAt: req.now,
      actor: req.settings.actor,
      reason: req.settings.reason,
      depth: found.depth + 1,
      messageCount: s.fork_seq + 1,
      ownMessages: 0,
    }
  }
}
