/**
 * What each of the store's statements means on a branch (docs/design.md, "Branches"): the table the
 * router (`router.ts`) puts in front of the prepared statements. Rows and messages here; the window
 * planner's questions in `route-view.ts`; the logs, pins and summaries in `route-logs.ts`.
 */
import type { BranchRouter } from './router.js'
import { piecesOf } from './lineage.js'
import type { BranchView } from './view.js'
import { ANY, FIRST, NAMED_S, NO_CHANGE, THIRD, viewOf, type Route, type Routes } from './route-types.js'
import { VIEW_ROUTES } from './route-view.js'
import { LOG_ROUTES } from './route-logs.js'

/** The owner of `seq` in the branch `pk`, or `pk` itself for a root. */
function ownerFor(router: BranchRouter, pk: number, seq: number): number {
  return router.isBranch(pk) ? (router.view(pk).ownerOf(seq) ?? pk) : pk
}

/** A row-state write: the branch's own row as prepared, an inherited one into `branch_rows`. */
function rowWrite(
  pkAt: number,
  seqAt: number,
  inherited: (v: BranchView, seq: number, owner: number, a: readonly unknown[]) => unknown,
): Route {
  return {
    pk: (a) => a[pkAt] as number,
    run: (c) => {
      const v = viewOf(c)
      const seq = c.args[seqAt] as number
      if (v.own(seq)) return c.prepared.run(...c.args)
      const owner = v.ownerOf(seq)
      return owner === undefined ? NO_CHANGE : inherited(v, seq, owner, c.args)
    },
  }
}

const MESSAGE_ROUTES: Routes = {
  sessionById: { pk: ANY, always: true, get: (c) => c.router.sessionRow(c.prepared.get(...c.args) as never) },
  sessionByPk: { pk: ANY, always: true, get: (c) => c.router.sessionRow(c.prepared.get(...c.args) as never) },
  allSessions: {
    pk: ANY,
    always: true,
    all: (c) => c.prepared.all().map((r) => c.router.sessionRow(r as never)),
  },
  messageByUid: { pk: FIRST, get: (c) => viewOf(c).messageByUid(c.args[1] as string) },
  messageBySeq: { pk: FIRST, get: (c) => viewOf(c).messageAt(c.args[1] as number) },
  newestRows: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      return v.newest(c.args[1] as number).map((r) => ({
        ...r,
        sent_as: r.repeat_of === null ? null : (v.messageAt(r.repeat_of)?.uid ?? null),
      }))
    },
  },
  idsAnsweredBy: {
    pk: FIRST,
    all: (c) => {
      const seq = c.args[1] as number
      return c.prepared.all(viewOf(c).ownerOf(seq), seq)
    },
  },
  repeatsOf: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const seq = c.args[1] as number
      return piecesOf(v.lineage, 0, Infinity).flatMap((p) =>
        (c.prepared.all(p.segment.owner, seq) as number[]).filter((s) => s >= p.from && s < p.to),
      )
    },
  },
  flagsBySeq: { pk: FIRST, get: (c) => viewOf(c).flagsAt(c.args[1] as number) },
  setCutFlags: {
    pk: THIRD,
    run: (c) => {
      const v = viewOf(c)
      const [trim, pair, pk, seq] = c.args as [number, number, number, number]
      if (v.own(seq)) return c.prepared.run(...c.args)
      if (seq !== v.lineage.forkSeq) throw new Error(`cut flags of inherited seq ${seq} of branch ${pk}`)
      c.router.forget(pk)
      return v.br.setForkFlags.run(trim, pair, pk)
    },
  },
  setPinned: rowWrite(1, 2, (v, seq, owner, a) =>
    v.br.setBranchPinned.run({ s: v.pk, seq, owner, pinned: a[0] as number }),
  ),
  setKept: rowWrite(2, 3, (v, seq, owner, a) =>
    v.br.setBranchKept.run({ s: v.pk, seq, owner, kept: a[0] as number, recheck: a[1] as number }),
  ),
  setRecheck: rowWrite(1, 2, (v, seq, owner, a) =>
    v.br.setBranchRecheck.run({ s: v.pk, seq, owner, recheck: a[0] as number }),
  ),
  history: { pk: FIRST, all: (c) => viewOf(c).history(c.args[1] as number, c.args[2] as number) },
  window: { pk: NAMED_S, all: (c) => viewOf(c).br.branchWindow.all({ s: viewOf(c).pk }) },
  windowRowsOfSeqs: {
    pk: NAMED_S,
    all: (c) => {
      const v = viewOf(c)
      const seqs = JSON.parse((c.args[0] as { seqs: string }).seqs) as number[]
      const rows = v.rowsOf(seqs)
      const out: unknown[] = []
      for (const seq of seqs) {
        const m = v.base.messageBySeq.get(v.ownerOf(seq) ?? v.pk, seq)
        if (m === undefined) continue
        const own = v.own(seq)
        const b = rows.get(seq)
        const form = own || b === undefined ? m.window_body : b.window_body
        out.push({ seq, body: form ?? m.body, pinned: own ? m.pinned : (b?.pinned ?? 0) })
      }
      return out
    },
  },
  unkeepRange: {
    pk: FIRST,
    run: (c) => {
      const v = viewOf(c)
      const [pk, from, to] = c.args as [number, number, number]
      const split = v.ownFrom
      if (from < split) v.br.unkeepBranchRange.run(pk, from, Math.min(to, split))
      return to > split ? c.prepared.run(pk, Math.max(from, split), to) : NO_CHANGE
    },
  },
  // An owner changing its row's window form first copies the old one down (see copyDownWindowBody).
  setWindowBody: {
    pk: ANY,
    always: true,
    run: (c) => {
      const [body, tokens, pk, seq] = c.args as [string | null, number | null, number, number]
      if (c.router.isBranch(pk)) {
        const v = c.router.view(pk)
        const owner = v.ownerOf(seq)
        if (!v.own(seq) && owner !== undefined)
          return v.br.setBranchWindowBody.run({ s: pk, seq, owner, body, tokens })
      }
      c.router.br.copyDownWindowBody.run({ owner: pk, seq })
      return c.prepared.run(...c.args)
    },
  },
  // A redaction or a prune erases the row's bytes for every session that sees it.
  setBody: {
    pk: ANY,
    always: true,
    run: (c) => {
      const [body, text, pk, seq] = c.args as [string, string | null, number, number]
      const owner = ownerFor(c.router, pk, seq)
      const out = c.prepared.run(body, text, owner, seq)
      const br = c.router.br
      for (const s of br.seeingKept.all(owner, seq)) if (s !== pk) br.forgetKeptTotals.run(s)
      br.clearBranchWindowBodies.run(owner, seq)
      return out
    },
  },
  eraseEditBodies: {
    pk: ANY,
    always: true,
    run: (c) => {
      const [pk, seq] = c.args as [number, number]
      const owner = ownerFor(c.router, pk, seq)
      c.router.br.eraseSeeingEditBodies.run({ owner, seq })
      return c.prepared.run(owner, seq)
    },
  },
  indexMessage: { pk: FIRST, run: (c) => c.prepared.run(viewOf(c).ownerOf(c.args[1] as number), c.args[1]) },
  unindexMessage: {
    pk: FIRST,
    run: (c) => c.prepared.run(viewOf(c).ownerOf(c.args[1] as number), c.args[1]),
  },
  // A boundary moved back (a dropped summary) brings inherited rows back into the tail: each gets its row.
  sessionBoundary: {
    pk: THIRD,
    run: (c) => {
      const v = viewOf(c)
      const [to, , pk] = c.args as [number, number, number]
      const old = v.br.boundaryOf.get(pk) ?? 0
      for (const p of piecesOf(v.lineage, to, Math.min(old, v.ownFrom)))
        if (p.segment.owner !== pk)
          v.br.fillRange.run({ b: pk, owner: p.segment.owner, lo: p.from, hi: p.to - 1 })
      return c.prepared.run(...c.args)
    },
  },
  madeCall: {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      const id = c.args[1] as string
      const own = c.prepared.get(v.pk, id)
      if (own !== undefined) return own
      for (const cut of v.lineage.logs) {
        const name = v.br.madeCallUpTo.get(cut.pk, id, cut.maxSeq)
        if (name !== undefined) return name
      }
      return undefined
    },
  },
}

/** Every routed statement. */
export const BRANCH_ROUTES: Routes = { ...MESSAGE_ROUTES, ...VIEW_ROUTES, ...LOG_ROUTES }
