/**
 * `fork()`: a new session whose conversation is another's up to a message, without copying a row
 * (docs/design.md, "Branches"). One write transaction writes the new `sessions` row, the calls still
 * open at the fork point, and the branch's window state on the rows its window shows (`branch_rows`);
 * none of it grows with the parent's history.
 */
import { ContextLedgerError } from '../../errors.js'
import { mintTrackingId } from '../../messages/tracking-id.js'
import type { BranchStatements } from '../../db/branch-statements.js'
import type { SessionForAppendRow } from '../../db/statements.js'
import { checkSessionId } from '../check-args.js'
import type { Ledger } from '../ledger.js'
import { checkForkOptions, type Point } from './check-options.js'
import { branchInfo, routerOf, sessionNotFound } from './tree.js'
import type { BranchInfo, BranchKind } from './types.js'
import { copyWindow } from './window-copy.js'

/** What a new branch is made with. */
export interface NewBranch {
  readonly id: string
  readonly kind: BranchKind & ('fork' | 'abandoned')
  readonly actor: string
  readonly reason: string | null
  /** Its metadata as stored; undefined: the parent's. */
  readonly metadata: string | null | undefined
}

/**
 * The seq a point names in a session, inside the caller's transaction.
 *
 * @param ledger - the open ledger
 * @param session - the session's row
 * @param point - a seq or a trackingId
 * @returns the seq
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` naming the session and the point's field
 */
export function seqOf(ledger: Ledger, session: SessionForAppendRow, point: Point): number {
  const seq =
    'seq' in point
      ? point.seq < session.message_count
        ? point.seq
        : undefined
      : ledger.st.messageByUid.get(session.pk, point.trackingId)?.seq
  if (seq === undefined)
    throw new ContextLedgerError(
      'MESSAGE_NOT_FOUND',
      `Session "${session.id}" has no message ${'seq' in point ? `at seq ${point.seq}` : `with trackingId ${JSON.stringify(point.trackingId)}`} (it holds ${session.message_count})`,
      { sessionId: session.id, path: point.field },
    )
  return seq
}

/**
 * `SESSION_EXISTS` unless `id` is free.
 *
 * @param ledger - the open ledger (inside the transaction)
 * @param id - the new session's id
 * @param path - the option naming it
 */
export function checkFree(ledger: Ledger, id: string, path: string): void {
  if (ledger.st.sessionById.get(id) !== undefined)
    throw new ContextLedgerError('SESSION_EXISTS', `A session "${id}" already exists`, {
      sessionId: id,
      path,
    })
}

/**
 * A new branch's fork clock: the ledger's log clock, bumped by one (`src/db/log-clock.ts`). Entries
 * written before it are below it and so inherited; entries written from now on record it and are not.
 *
 * @param br - the branch statements (inside the fork's transaction)
 * @returns the new branch's `fork_version`
 */
export function tickClock(br: BranchStatements): number {
  const clock = br.tickClock.get()
  if (clock === undefined) throw new Error('the log clock row (search_state) is missing')
  return clock
}

/**
 * The cut flags of the row at `seq` had it been the newest: a user message that opens a window on its
 * own is a trim point; nothing is a tool-pair start before its answer arrives.
 *
 * @param ledger - the open ledger (inside the transaction)
 * @param parent - the session's row
 * @param seq - a seq of its conversation
 * @returns the flags (0 or 1)
 */
export function flagsAsNewest(
  ledger: Ledger,
  parent: SessionForAppendRow,
  seq: number,
): { trim: number; pair: number } {
  if (seq === parent.message_count - 1)
    return { trim: parent.last_trim_point ?? 0, pair: parent.last_pair_start ?? 0 }
  const f = ledger.st.flagsBySeq.get(parent.pk, seq)
  const trim =
    f !== undefined &&
    f.role === 'user' &&
    f.has_tool_result === 0 &&
    f.has_tool_use === 0 &&
    f.plain_user === 1
  return { trim: trim ? 1 : 0, pair: 0 }
}

/**
 * Writes a new branch of `parent` at `seq`: its row, the calls open at `seq`, its window state. Inside the
 * caller's write transaction.
 *
 * @param ledger - the open ledger
 * @param parent - the parent's row, read in this transaction
 * @param seq - the fork point
 * @param spec - the new branch
 * @returns the new branch's pk
 */
export function writeBranch(
  ledger: Ledger,
  parent: SessionForAppendRow,
  seq: number,
  spec: NewBranch,
): number {
  const router = routerOf(ledger)
  const { st } = ledger
  const br = router.br
  const now = Date.now()
  const flags = flagsAsNewest(ledger, parent, seq)
  br.insertBranch.run({
    id: spec.id,
    now,
    metadata: spec.metadata === undefined ? parent.metadata : spec.metadata,
    format: parent.format,
    parent: parent.pk,
    forkSeq: seq,
    kind: spec.kind,
    actor: spec.actor,
    reason: spec.reason,
    forkVersion: tickClock(br),
    forkTokens: st.cumAt.get(parent.pk, seq) ?? 0,
    trim: flags.trim,
    pair: flags.pair,
  })
  const pk = st.sessionById.get(spec.id)?.pk
  if (pk === undefined) throw new Error(`branch "${spec.id}" not found right after its insert`)
  ledger.keys.remember(spec.id, pk)
  // The calls waiting at the fork point: held by the session owning it (a call answered only after the
  // fork point is open in the branch, which answers it with its own rows).
  const holder = router.isBranch(parent.pk) ? (router.view(parent.pk).ownerOf(seq) ?? parent.pk) : parent.pk
  const open = [
    ...br.callsOpenNow.all({ s: holder, f: seq }),
    ...br.callsAnsweredAfter.all({ s: holder, f: seq }),
  ]
  for (const c of open.sort((a, b) => a.id - b.id))
    br.insertCall.run(pk, c.tool_use_id, c.name, c.use_seq, null, null)
  copyWindow(ledger, parent, seq, pk, flags.trim === 1)
  return pk
}

/**
 * Forks a session; see `ContextStore.fork`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session forked
 * @param options - the fork options (unchecked: checked here)
 * @returns the new branch
 */
export function fork(ledger: Ledger, sessionId: string, options: unknown): BranchInfo {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  const o = checkForkOptions(options, ledger.limits)
  const id = o.newSessionId ?? mintTrackingId()
  return ledger.write(sessionId, () => {
    const parent = ledger.keys.sessionRow(sessionId)
    if (parent === undefined) throw sessionNotFound(sessionId)
    const seq = seqOf(ledger, parent, o.point)
    checkFree(ledger, id, 'newSessionId')
    const pk = writeBranch(ledger, parent, seq, {
      id,
      kind: 'fork',
      actor: o.actor,
      reason: o.reason,
      metadata: o.metadata,
    })
    return branchInfo(routerOf(ledger), pk)
  })
}
