/**
 * The window planner's statements (`src/db/view-statements.ts`) on a branch: kept rows, recheck marks and
 * pins from the branch's `branch_rows` before its own rows; fact ranges (trim points, tool-pair starts)
 * from each owner for its part, with the lineage's cut flags where a part ends; tool-call links from the
 * session that holds each call (its owner, or the branch that copied it open at its fork).
 */
import type { CorrectionRow, FactsRow, FlagsRow, LinkRow } from '../../db/statements.js'
import { piecesOf } from './lineage.js'
import { FIRST, NAMED_S, viewOf, type Call, type Route, type Routes } from './route-types.js'
import type { BranchView, CutTest } from './view.js'

const TRIM: CutTest = (_f, cut) => cut.trim
const PAIR: CutTest = (_f, cut) => cut.pair
const PLAIN: CutTest = (f, cut) => cut.trim && f.plain_user === 1
const SPLIT: CutTest = (f: FlagsRow, cut) =>
  f.has_tool_result === 0 && (f.has_tool_use === 0 || cut.pair || cut.trim)

/** A fact-range statement `(pk, from, to)` (or `(pk, from)` to the end) answered part by part. */
function range(last: boolean, test: CutTest, open = false): Route {
  return {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      const from = c.args[1] as number
      const to = open ? Infinity : (c.args[2] as number)
      const ask = (owner: number, a: number, b: number): number | undefined =>
        (open ? c.prepared.get(owner, a) : c.prepared.get(owner, a, b)) as number | undefined
      // An open range asks each owner from `a` on: only what lies before `b` is the owner's part.
      const bounded = (owner: number, a: number, b: number): number | undefined => {
        const s = ask(owner, a, b)
        return s !== undefined && s < b ? s : undefined
      }
      return v.findIn(from, to, last, bounded, test)
    },
  }
}

/** Window-token corrections in `[from, to)` as the branch sees them, ascending. */
function corrections(v: BranchView, c: Call, from: number, to: number): CorrectionRow[] {
  const out: CorrectionRow[] = []
  for (const p of piecesOf(v.lineage, from, to)) {
    if (p.segment.owner === v.pk) {
      out.push(...(c.prepared.all(v.pk, p.from, p.to) as CorrectionRow[]))
      continue
    }
    const mine = v.rowsIn(p.from, p.to)
    const theirs = v.base.corrections.all(p.segment.owner, p.from, p.to).filter((r) => !mine.has(r.seq))
    const own = v.br.branchCorrections.all(v.pk, p.from, p.to)
    out.push(...[...theirs, ...own].sort((a, b) => a.seq - b.seq))
  }
  return out
}

/** Tool-call links `[use, result]` with the use in `seqs`, from every session holding calls of the branch. */
function linksOfUses(v: BranchView, c: Call, seqs: string): LinkRow[] {
  const out = c.prepared.all({ s: v.pk, seqs }) as LinkRow[]
  for (const s of v.lineage.segments) {
    if (s.owner === v.pk) continue
    out.push(...v.br.linksOfUsesHeld.all({ s: s.owner, seqs, lo: s.lo, hi: s.hi }))
  }
  return out
}

export const VIEW_ROUTES: Routes = {
  keptSeqs: {
    pk: FIRST,
    all: (c) => [...viewOf(c).br.branchKeptSeqs.all(viewOf(c).pk), ...c.prepared.all(...c.args)],
  },
  keptTotals: {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      const a = v.br.branchKeptTotals.get(v.pk) ?? { count: 0, tokens: 0 }
      const b = (c.prepared.get(v.pk) as { count: number; tokens: number } | undefined) ?? {
        count: 0,
        tokens: 0,
      }
      return { count: a.count + b.count, tokens: a.tokens + b.tokens }
    },
  },
  firstKept: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const limit = c.args[1] as number
      const inherited = v.br.branchKeptSeqs.all(v.pk).slice(0, Math.max(0, limit))
      if (inherited.length >= limit) return inherited
      return [...inherited, ...c.prepared.all(v.pk, limit - inherited.length)]
    },
  },
  keptAt: {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      const offset = c.args[1] as number
      const inherited = v.br.branchKeptSeqs.all(v.pk)
      return offset < inherited.length ? inherited[offset] : c.prepared.get(v.pk, offset - inherited.length)
    },
  },
  anyKept: {
    pk: FIRST,
    get: (c) => (viewOf(c).br.branchKeptSeqs.all(viewOf(c).pk).length > 0 ? 1 : c.prepared.get(...c.args)),
  },
  recheckSeqs: {
    pk: FIRST,
    all: (c) => [...viewOf(c).br.branchRecheckSeqs.all(viewOf(c).pk), ...c.prepared.all(...c.args)],
  },
  firstSettled: {
    pk: FIRST,
    get: (c) => viewOf(c).br.branchFirstSettled.get(viewOf(c).pk) ?? c.prepared.get(...c.args),
  },
  pinnedIn: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const [pk, from, to] = c.args as [number, number, number]
      const split = v.ownFrom
      const inherited = from < split ? v.br.branchPinnedIn.all(pk, from, Math.min(to, split)) : []
      return to > split ? [...inherited, ...c.prepared.all(pk, Math.max(from, split), to)] : inherited
    },
  },
  pinnedCount: {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      return (
        v.br.branchPinnedIn.all(v.pk, 0, v.ownFrom).length +
        ((c.prepared.get(v.pk) as number | undefined) ?? 0)
      )
    },
  },
  corrections: {
    pk: FIRST,
    all: (c) => corrections(viewOf(c), c, c.args[1] as number, c.args[2] as number),
  },
  tailCorrection: {
    pk: FIRST,
    get: (c) => {
      const v = viewOf(c)
      const own = v.base.corrections
      const rows = corrections(v, { ...c, prepared: own }, c.args[1] as number, Infinity)
      return rows.reduce((sum, r) => sum + r.delta, 0)
    },
  },
  cumAt: {
    pk: FIRST,
    get: (c) => {
      const seq = c.args[1] as number
      const owner = viewOf(c).ownerOf(seq)
      return owner === undefined ? undefined : c.prepared.get(owner, seq)
    },
  },
  firstTrimPoint: range(false, TRIM),
  lastTrimPoint: range(true, TRIM),
  lastPairStart: range(true, PAIR),
  firstPairStart: range(false, PAIR),
  lastPlainUser: range(true, PLAIN),
  firstPlainUser: range(false, PLAIN, true),
  firstSplitPoint: range(false, SPLIT),
  linksOfUses: { pk: NAMED_S, all: (c) => linksOfUses(viewOf(c), c, (c.args[0] as { seqs: string }).seqs) },
  linksOfResults: {
    pk: NAMED_S,
    all: (c) => {
      const v = viewOf(c)
      const seqs = JSON.parse((c.args[0] as { seqs: string }).seqs) as number[]
      const byOwner = new Map<number, number[]>()
      for (const s of seqs) {
        const owner = v.ownerOf(s)
        if (owner !== undefined) byOwner.set(owner, [...(byOwner.get(owner) ?? []), s])
      }
      return [...byOwner].flatMap(([owner, list]) => c.prepared.all({ s: owner, seqs: JSON.stringify(list) }))
    },
  },
  factsOfSeqs: {
    pk: NAMED_S,
    all: (c) => {
      const v = viewOf(c)
      const seqs = JSON.parse((c.args[0] as { seqs: string }).seqs) as number[]
      const own = seqs.filter((s) => v.own(s))
      const out =
        own.length === 0 ? [] : (c.prepared.all({ s: v.pk, seqs: JSON.stringify(own) }) as FactsRow[])
      const rows = v.rowsOf(seqs)
      for (const seq of seqs) {
        if (v.own(seq)) continue
        const b = rows.get(seq)
        if (b !== undefined) {
          out.push({
            seq,
            kept: b.kept,
            recheck: b.recheck,
            pinned: b.pinned,
            window_tokens: b.window_tokens ?? b.tokens,
          })
          continue
        }
        const owner = v.ownerOf(seq)
        const f = owner === undefined ? undefined : v.base.factsOfSeqs.all({ s: owner, seqs: `[${seq}]` })[0]
        if (f !== undefined) out.push({ ...f, kept: 0, recheck: 0, pinned: 0 })
      }
      return out
    },
  },
  usesOfResult: {
    pk: FIRST,
    all: (c) => {
      const seq = c.args[1] as number
      const owner = viewOf(c).ownerOf(seq)
      return owner === undefined ? [] : c.prepared.all(owner, seq)
    },
  },
  crossingResults: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const [, from, to] = c.args as [number, number, number]
      const out = c.prepared.all(...c.args) as number[]
      for (const s of v.lineage.segments)
        if (s.owner !== v.pk)
          out.push(...v.br.crossingResultsHeld.all({ s: s.owner, from, to, lo: s.lo, hi: s.hi }))
      return out
    },
  },
  crossingUses: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const [, from, to] = c.args as [number, number, number]
      return piecesOf(v.lineage, from, to).flatMap(
        (p) => c.prepared.all(p.segment.owner, p.from, p.to, from, to) as number[],
      )
    },
  },
}
