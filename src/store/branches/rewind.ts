/**
 * `rewind()`: a session continues from an earlier message (docs/design.md, "Branches"). Its rows after
 * that message become a new abandoned branch — moved, not copied: the cost is the number of rows rewound
 * — which takes the session's window as it was and the branches forked after that message; the session
 * keeps its id and pk, and its window is restricted and made valid as a fork's would be. A branch rewound
 * to before its own fork point inherits less: its old content (what it inherited past that point and its
 * own rows) becomes the abandoned branch, a sibling holding the old fork point.
 */
import type { SessionForAppendRow } from '../../db/statements.js'
import { mintTrackingId } from '../../messages/tracking-id.js'
import type { WindowLimits } from '../../window/window-options.js'
import { applyPlanned } from '../apply-window.js'
import { checkSessionId, SESSION_ID_MAX } from '../check-args.js'
import type { Ledger } from '../ledger.js'
import { checkRewindOptions } from './check-options.js'
import { checkFree, flagsAsNewest, seqOf, tickClock } from './fork.js'
import { piecesOf } from './lineage.js'
import { branchInfo, routerOf, sessionNotFound } from './tree.js'
import type { RewindResult } from './types.js'
import { trimAtOrBefore, validStart } from './window-copy.js'
import { recordRewind, splitRewoundLog } from '../rewind-log.js'

/** The first free `${id}~${k}`, k ≥ 1 (a minted id when that would be too long). */
function freeId(ledger: Ledger, id: string): string {
  for (let k = 1; ; k++) {
    const candidate = `${id}~${k}`
    if (candidate.length > SESSION_ID_MAX) return mintTrackingId()
    if (ledger.st.sessionById.get(candidate) === undefined) return candidate
  }
}

/** What the session's restriction needs, read before anything moves. */
interface Before {
  readonly session: SessionForAppendRow
  readonly to: number
  /** The session's first own seq before the rewind. */
  readonly ownFrom: number
  /** The first seq of its window's tail after the rewind. */
  readonly from: number
  /** The cut flags of `to` as its newest row. */
  readonly trim: number
  /** The token prefix sum through `to`. */
  readonly tokens: number
  /** The session owning `to` (who holds the calls open there). */
  readonly holder: number
}

/** Moves the rows after `to` into the new abandoned branch `a` with the window the session had. */
function abandon(ledger: Ledger, b: Before, a: number): void {
  const router = routerOf(ledger)
  const br = router.br
  const { session: s, to } = b
  const before = to < b.ownFrom - 1
  if (!before) {
    br.copyOwnKept.run({ b: a, p: s.pk, lo: b.ownFrom, from: s.boundary, f: to })
    br.copyOwnTail.run({ b: a, p: s.pk, from: Math.max(s.boundary, b.ownFrom), f: to })
  }
  if (b.ownFrom > 0)
    br.copyBranchRows.run({ b: a, p: s.pk, from: s.boundary, f: before ? b.ownFrom - 1 : to })
  const m = { s: s.pk, a, to }
  br.moveMessages.run(m)
  br.moveCalls.run(before ? { ...m, to: -1 } : m)
  if (!before) {
    br.copyAnsweredCalls.run(m)
    br.reopenCalls.run(m)
  }
  br.movePinEvents.run(m)
  br.moveEdits.run(m)
  if (before) {
    br.copyPinEvents.run(m)
    br.copyEdits.run(m)
    br.dropBranchRowsAfter.run(s.pk, to)
  }
  br.moveEvictions.run(m)
  // The summaries that folded a message after `to`; rewound to before its fork point, every one: the
  // session's old window (which may show one) is the abandoned branch's, not an ancestor's.
  br.moveSummaries.run(before ? { ...m, to: -1 } : m)
  br.reownBranchRows.run(m)
  br.reparent.run(m)
  const shown = s.summary
  const inherited = shown !== null && br.summaryOwner.get(shown) !== a
  br.setBranchWindow.run({
    pk: a,
    boundary: s.boundary,
    keptCount: s.kept_count,
    keptTokens: s.kept_tokens,
    keptFirst: s.kept_first,
    summary: shown,
    limits: s.limits,
    forkSummary: inherited ? shown : null,
  })
}

/**
 * The session after the move: its newest row's flags, its calls open at `to`, its window made valid;
 * `restricted` is told where its tail starts once the window is restricted, before it is planned again
 * (the eviction log's part, `store/rewind-log.ts`).
 */
function restrict(ledger: Ledger, b: Before, now: number, restricted: (from: number) => void): void {
  const router = routerOf(ledger)
  const { br } = router
  const base = router.base
  const { session: s, to } = b
  const before = to < b.ownFrom - 1
  if (before) {
    br.setForkPoint.run({ pk: s.pk, forkSeq: to, tokens: b.tokens, trim: b.trim, pair: 0 })
    const open = [
      ...br.callsOpenNow.all({ s: b.holder, f: to }),
      ...br.callsAnsweredAfter.all({ s: b.holder, f: to }),
    ]
    for (const c of open.sort((x, y) => x.id - y.id))
      br.insertCall.run(s.pk, c.tool_use_id, c.name, c.use_seq, null, null)
  } else if (to >= b.ownFrom) base.setCutFlags.run(b.trim, 0, s.pk, to)
  else br.setForkFlags.run(b.trim, 0, s.pk)
  router.reset()
  const st = ledger.st
  // The inherited summary stays listed while it stands for messages the session still has.
  const inheritedId = br.forkSummaryOf.get(s.pk)?.fork_summary ?? null
  const inheritedOwner = inheritedId === null ? undefined : br.summaryOwner.get(inheritedId)
  const inheritedRow =
    inheritedId === null || inheritedOwner === undefined
      ? undefined
      : base.summaryById.get(inheritedOwner, inheritedId)
  const fork = inheritedRow !== undefined && inheritedRow.to_boundary <= to + 1 ? inheritedRow.id : null
  // The summary stays where its boundary does, and only if it is still the session's or its ancestors'.
  const owner = s.summary === null ? undefined : br.summaryOwner.get(s.summary)
  const mine = owner !== undefined && (owner === s.pk || s.summary === fork)
  const keep = b.from === s.boundary && s.boundary <= to + 1 && mine
  const summary = keep ? s.summary : null
  // Without its summary the window opens with its tail (or a kept row): the tail starts at a trim point.
  const from =
    keep || s.summary === null ? b.from : (trimAtOrBefore(ledger, s, to, b.trim === 1, b.from) ?? b.from)
  if (!keep && s.summary !== null) {
    if (owner === s.pk) base.endSummary.run(now, 'evicted', s.summary)
    else if (s.summary === inheritedId) br.endForkSummary.run(now, 'evicted', s.pk)
  }
  st.unkeepRange.run(s.pk, from, to + 1)
  if (router.isBranch(s.pk)) {
    const view = router.view(s.pk)
    for (const p of piecesOf(view.lineage, from, Math.min(to + 1, view.ownFrom)))
      br.fillRange.run({ b: s.pk, owner: p.segment.owner, lo: p.from, hi: p.to - 1 })
  }
  br.setBranchWindow.run({
    pk: s.pk,
    boundary: from,
    keptCount: null,
    keptTokens: null,
    keptFirst: null,
    summary,
    limits: s.limits,
    forkSummary: fork,
  })
  restricted(from)
  st.sessionTouch.run(now, s.pk)
  if (s.limits === null) return
  const row = st.sessionByPk.get(s.pk)
  if (row !== undefined) applyPlanned(ledger, row, JSON.parse(s.limits) as WindowLimits, 'apply')
}

/**
 * Rewinds a session; see `ContextStore.rewind`.
 *
 * @param ledger - the open ledger
 * @param sessionId - the session
 * @param options - the rewind options (unchecked: checked here)
 * @returns the session, the abandoned branch, and how many messages left
 */
export function rewind(ledger: Ledger, sessionId: string, options: unknown): RewindResult {
  ledger.ensureWritable()
  checkSessionId(sessionId)
  const o = checkRewindOptions(options)
  return ledger.write(sessionId, () => {
    const router = routerOf(ledger)
    const s = ledger.keys.sessionRow(sessionId)
    if (s === undefined) throw sessionNotFound(sessionId)
    const to = seqOf(ledger, s, o.point)
    const left = s.message_count - 1 - to
    if (left === 0) return { session: branchInfo(router, s.pk), abandoned: undefined, left: 0 }
    const id = o.abandonedId ?? freeId(ledger, s.id)
    checkFree(ledger, id, 'abandonedId')
    const view = router.isBranch(s.pk) ? router.view(s.pk) : undefined
    const ownFrom = view?.ownFrom ?? 0
    const st = ledger.st
    const trim = flagsAsNewest(ledger, s, to).trim
    const b: Before = {
      session: s,
      to,
      ownFrom,
      from: validStart(ledger, s, to, trim === 1),
      trim,
      tokens: st.cumAt.get(s.pk, to) ?? 0,
      holder: view?.ownerOf(to) ?? s.pk,
    }
    const before = view !== undefined && to < ownFrom - 1
    const forkSeq = before ? ownFrom - 1 : to
    const cut = before ? view.lineage.cuts.get(forkSeq) : undefined
    const now = Date.now()
    const br = router.br
    br.insertBranch.run({
      id,
      now,
      metadata: s.metadata,
      format: s.format,
      parent: before ? (s.parent ?? s.pk) : s.pk,
      forkSeq,
      kind: 'abandoned',
      actor: o.actor,
      reason: o.reason,
      forkVersion: before ? (view.lineage.forkVersion ?? 0) : tickClock(br),
      forkTokens: before ? (st.cumAt.get(s.pk, forkSeq) ?? 0) : b.tokens,
      trim: before
        ? cut?.trim === true
          ? 1
          : 0
        : st.firstTrimPoint.get(s.pk, to, to + 1) === undefined
          ? 0
          : 1,
      pair: before
        ? cut?.pair === true
          ? 1
          : 0
        : st.firstPairStart.get(s.pk, to, to + 1) === undefined
          ? 0
          : 1,
    })
    const a = st.sessionById.get(id)?.pk
    if (a === undefined) throw new Error(`abandoned branch "${id}" not found right after its insert`)
    ledger.keys.remember(id, a)
    abandon(ledger, b, a)
    // The eviction log follows the window: split once the session's tail start is known.
    restrict(ledger, b, now, (from) => {
      splitRewoundLog(br, { session: s.pk, abandoned: a, toSeq: to, tailFrom: from, beforeFork: before })
    })
    recordRewind(st, s.pk, [to + 1, s.message_count - 1], a, now)
    router.reset()
    return { session: branchInfo(router, s.pk), abandoned: branchInfo(router, a), left }
  })
}
