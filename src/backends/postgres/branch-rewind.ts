/**
 * `rewind()` on PostgreSQL (docs/design.md, "Branches"): the SQLite store's rewind
 * (`src/store/branches/rewind.ts`) in the backend's read and write. The branch statement reads the
 * session as it would be had it ended at the point (`snapshot-branch.ts`, `fk`) — what the session is
 * after the rewind — with the revisions of every session below it and the abandoned branch's default id.
 * On that slice the session is restricted and made valid as a fork's window would be (the same
 * `validStart`, `applyPlanned`); the write-back (`flush-rewind.ts`) creates the abandoned branch with the
 * window the session had, and moves the rows after the point into it in the same statement.
 */
import { ContextLedgerError } from '../../errors.js'
import { mintTrackingId } from '../../messages/tracking-id.js'
import { applyPlanned } from '../../store/apply-window.js'
import { SESSION_ID_MAX } from '../../store/check-args.js'
import type { RewindSettings } from '../../store/branches/check-options.js'
import { flagsAsNewest } from '../../store/branches/fork.js'
import { sessionNotFound } from '../../store/branches/tree.js'
import type { BranchInfo, RewindResult } from '../../store/branches/types.js'
import { trimAtOrBefore, validStart } from '../../store/branches/window-copy.js'
import type { WindowLimits } from '../../window/window-options.js'
import { pointNotFound, storableSeq } from './branch-fork.js'
import type { RewindWrite } from './flush-rewind.js'
import { Slice, type SliceSession } from './slice.js'
import type { SliceLedger } from './slice-ledger.js'
import type { SnapshotResult } from './snapshot-query.js'
import type { MakeSlice, ReadSpec } from './store.js'

/** A rewind as the store runs it. */
export interface RewindRequest {
  readonly sessionId: string
  readonly settings: RewindSettings
  readonly now: number
}

/**
 * What a rewind reads of its session.
 *
 * @param req - the rewind
 * @returns the snapshot spec
 */
export function rewindSpec(req: RewindRequest): ReadSpec {
  const point = req.settings.point
  const named = req.settings.abandonedId
  return {
    plan: 2,
    allKept: true,
    forkSeq: 'seq' in point ? storableSeq(point.seq) : null,
    forkUid: 'trackingId' in point ? point.trackingId : null,
    probe: named === undefined ? [] : [named],
    subtree: true,
    freeBase: named === undefined ? req.sessionId : null,
  }
}

/** What the read found, for the operation on the slice. */
interface Found {
  result: SnapshotResult | undefined
  at: number
  full: number
  id: string
}

/** The abandoned branch's id: the one asked for, or the first free `${sessionId}~${k}` (minted when too long). */
function abandonedId(req: RewindRequest, result: SnapshotResult): string {
  const named = req.settings.abandonedId
  if (named !== undefined) {
    if ((result.taken ?? []).includes(named))
      throw new ContextLedgerError('SESSION_EXISTS', `A session "${named}" already exists`, {
        sessionId: named,
        path: 'abandonedId',
      })
    return named
  }
  const candidate = `${req.sessionId}~${result.free_k ?? 1}`
  return candidate.length > SESSION_ID_MAX ? mintTrackingId() : candidate
}

/**
 * A rewind's two halves: the maker of the session's slice (as it is after the point) and the operation on
 * it, which restricts its window and records what the write-back moves.
 *
 * @param req - the rewind
 * @returns both
 */
export function rewindCall(req: RewindRequest): {
  make: MakeSlice
  op: (ledger: SliceLedger) => RewindResult
} {
  const found: Found = { result: undefined, at: 0, full: 0, id: '' }
  const make: MakeSlice = (result, read, uids) => {
    if (result.session === null) throw sessionNotFound(req.sessionId)
    const full = result.full_n ?? 0
    const at = result.fork_at
    if (at === null || at >= full) throw pointNotFound(req.sessionId, req.settings.point, full)
    Object.assign(found, { result, at, full, id: at === full - 1 ? '' : abandonedId(req, result) })
    return new Slice(read.sessionId, result, uids, read.keptK, null)
  }
  return { make, op: (ledger) => rewindOp(req, found, ledger) }
}

/** The session's info as `branches()` would list it, with `messageCount` and its own rows given. */
function infoOf(s: SliceSession, found: Found, count: number): BranchInfo {
  const inherited = s.fork_seq === null ? 0 : s.fork_seq + 1
  return {
    sessionId: s.id,
    parentId: found.result?.parent_id ?? null,
    forkSeq: s.fork_seq,
    kind: s.kind,
    createdAt: s.forked_at ?? s.created_at,
    actor: s.fork_actor,
    reason: s.fork_reason,
    depth: found.result?.depth ?? 0,
    messageCount: count,
    ownMessages: Math.max(0, count - inherited),
  }
}

function rewindOp(req: RewindRequest, found: Found, ledger: SliceLedger): RewindResult {
  const slice = ledger.slice
  const s = slice.session
  if (s === undefined) throw sessionNotFound(req.sessionId)
  const { at: to, full } = found
  const left = full - 1 - to
  if (left === 0) return { session: infoOf(s, found, full), abandoned: undefined, left: 0 }
  const read = ledger.st.sessionById.get(s.id)
  if (read === undefined) throw sessionNotFound(req.sessionId)
  const before = { ...s }
  const row = { ...read, message_count: full }
  const trim = flagsAsNewest(ledger, row, to).trim
  const from = validStart(ledger, row, to, trim === 1)
  const ownFrom = s.parent === null ? 0 : (s.fork_seq ?? -1) + 1
  const earlier = s.parent !== null && to < ownFrom - 1
  const atTo = slice.row(to, 'rewind')
  const shown = s.summary === null ? undefined : slice.summaries.get(s.summary)
  // A summary the session wrote over a message after the point goes with those messages; rewound to
  // before its fork point, every one of its own (its old window is the abandoned branch's).
  const moved = shown !== undefined && shown.session === s.pk && (earlier || shown.to_boundary > to + 1)
  slice.rewind = abandonedRow(req, found, before, {
    earlier,
    ownFrom,
    trim: earlier ? s.fork_trim_point === true : atTo.trim_point === 1,
    pair: earlier ? s.fork_pair_start === true : atTo.pair_start === 1,
    forkTokens: earlier ? (s.fork_tokens ?? 0) : atTo.cum_tokens,
    shownMoves: moved,
  })
  restrict(ledger, { to, from, trim, earlier, ownFrom, moved })
  const abandonedInfo: BranchInfo = {
    sessionId: found.id,
    parentId: earlier ? (found.result?.parent_id ?? null) : s.id,
    forkSeq: slice.rewind.forkSeq,
    kind: 'abandoned',
    createdAt: req.now,
    actor: req.settings.actor,
    reason: req.settings.reason,
    depth: (found.result?.depth ?? 0) + (earlier ? 0 : 1),
    messageCount: full,
    ownMessages: full - slice.rewind.forkSeq - 1,
  }
  return { session: infoOf(s, found, to + 1), abandoned: abandonedInfo, left }
}

/** The abandoned branch's row: the session's window as read, in the session's place or below it. */
function abandonedRow(
  req: RewindRequest,
  found: Found,
  s: SliceSession,
  o: {
    earlier: boolean
    ownFrom: number
    trim: boolean
    pair: boolean
    forkTokens: number
    shownMoves: boolean
  },
): RewindWrite {
  const result = found.result
  if (result === undefined || result.next_pk === null) throw sessionNotFound(req.sessionId)
  return {
    abandoned: result.next_pk,
    id: found.id,
    to: found.at,
    before: o.earlier,
    subtree: result.subtree ?? [],
    at: req.now,
    metadata: s.metadata,
    boundary: s.boundary,
    keptCount: s.kept_count,
    keptTokens: s.kept_tokens,
    keptFirst: s.kept_first,
    summary: s.summary,
    limits: s.limits,
    format: s.format,
    parent: o.earlier ? (s.parent ?? s.pk) : s.pk,
    forkSeq: o.earlier ? o.ownFrom - 1 : found.at,
    actor: req.settings.actor,
    reason: req.settings.reason,
    forkVersion: o.earlier ? s.fork_version : null,
    forkTokens: o.forkTokens,
    trim: o.trim,
    pair: o.pair,
    forkSummary: s.summary !== null && !o.shownMoves ? s.summary : null,
    ownFrom: o.ownFrom,
    copyUpTo: o.earlier ? o.ownFrom - 1 : found.at,
    tailFrom: found.at + 1,
    version: s.version,
    last: found.full - 1,
  }
}

/** The session after the move: its newest row's flags, its open calls, its window restricted and made valid. */
function restrict(
  ledger: SliceLedger,
  r: { to: number; from: number; trim: number; earlier: boolean; ownFrom: number; moved: boolean },
): void {
  const slice = ledger.slice
  const st = ledger.st
  const s = slice.session
  if (s === undefined) return
  const { to } = r
  const now = Date.now()
  const boundary = s.boundary
  const shown = s.summary
  reopenCalls(slice, to, r.earlier)
  if (r.earlier) {
    s.fork_seq = to
    s.fork_tokens = slice.row(to, 'rewind').cum_tokens
  }
  // The point's row is the newest: its flags as such, on the slice's row too — rewound to before the fork
  // point, that row is the new fork point, and the planner below reads it with the flags its owner gave it
  // (a call answered next: a cut before it), not the branch's.
  st.setCutFlags.run(r.trim, 0, s.pk, to)
  // The inherited summary stays listed while it stands for messages the session still has.
  const inheritedRow = s.fork_summary === null ? undefined : slice.summaries.get(s.fork_summary)
  const fork = inheritedRow !== undefined && inheritedRow.to_boundary <= to + 1 ? inheritedRow.id : null
  // The summary stays where its boundary does, and only if it is still the session's or its ancestors'.
  const owner = shown === null || r.moved ? undefined : slice.summaries.get(shown)?.session
  const mine = owner !== undefined && (owner === s.pk || shown === fork)
  const keep = r.from === boundary && boundary <= to + 1 && mine
  // Without its summary the window opens with its tail (or a kept row): the tail starts at a trim point.
  const row = st.sessionByPk.get(s.pk)
  const from =
    keep || shown === null || row === undefined
      ? r.from
      : (trimAtOrBefore(ledger, row, to, r.trim === 1, r.from) ?? r.from)
  if (!keep && shown !== null && (owner === s.pk || (owner !== undefined && shown === s.fork_summary)))
    st.endSummary.run(now, 'evicted', shown)
  st.unkeepRange.run(s.pk, from, to + 1)
  // Every inherited row of the new tail gets its row of state (the window's rows have one).
  const ownFrom = r.earlier ? to + 1 : r.ownFrom
  for (let seq = from; seq <= to && seq < ownFrom; seq++)
    if (slice.inherited(seq)) slice.setRow(seq, {}, 'rewind')
  s.boundary = from
  if (slice.rewind !== undefined) slice.rewind.tailFrom = from
  s.kept_count = null
  s.kept_tokens = null
  s.kept_first = null
  s.summary = keep ? shown : null
  s.fork_summary = fork
  slice.sessionChanged = true
  st.sessionTouch.run(now, s.pk)
  if (s.limits === null) return
  const after = st.sessionByPk.get(s.pk)
  if (after !== undefined) applyPlanned(ledger, after, JSON.parse(s.limits) as WindowLimits, 'apply')
}

/**
 * The session's calls at the point: made by then and answered after it are open again (its own); rewound
 * to before its fork point, every call of its own goes with its rows and those open at the point are
 * copied anew (as a fork's).
 */
function reopenCalls(slice: Slice, to: number, earlier: boolean): void {
  const open = slice.calls.filter((c) => c.use_seq <= to && c.result_seq !== null && c.result_seq > to)
  if (!earlier) {
    for (const c of open) {
      c.result_seq = null
      c.status = null
      slice.changedCalls.add(c.id)
    }
    return
  }
  const waiting = slice.calls.filter((c) => c.use_seq <= to && (c.result_seq === null || c.result_seq > to))
  for (const c of waiting.sort((x, y) => x.id - y.id)) {
    slice.calls.splice(slice.calls.indexOf(c), 1)
    slice.insertCall({
      tool_use_id: c.tool_use_id,
      name: c.name,
      use_seq: c.use_seq,
      result_seq: null,
      status: null,
    })
  }
}
