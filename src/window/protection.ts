/**
 * Which messages are protected (docs/design.md, "Window rules") — worked out without reading every pin.
 * A message is protected when it is pinned, in the first N or last N of the session, or tied to such a
 * message by tool calls (transitively); a validity lead joins them when the earliest cannot open a
 * window; and messages before the session's first plain user message are not protected when nothing
 * before the earliest protected one could open a window.
 *
 * The rows kept before the boundary are, after every operation, a superset of the protected rows there
 * (each write restores what it newly protects). Most of them are *settled*: protected for a reason only
 * an unpin or different protected ranges can take away (a pin or the first-N range, away from the
 * session's opening). The others carry a recheck mark, set when they were kept (a last-N row, a lead, an
 * anchor, the newest turn's opening) or when an unpin may have taken their protection. So a plan derives
 * protection only for the marked rows, the rows the tail touches, and the last-N range — never for every
 * pin — and trusts the settled rows, which it knows only as a count and a token total.
 */
import type { LedgerView, ProtectionScope, RowFacts } from './ledger-view.js'
import type { WindowLimits } from './window-options.js'

/** Sorted unique copy. */
export function sortedUnique(seqs: Iterable<number>): number[] {
  return [...new Set(seqs)].sort((a, b) => a - b)
}

/** The protected set around the boundary, and what the kept rows must change to match it. */
export class Protection {
  /** Protected rows at or after the boundary (the lead included), ascending. */
  readonly tail: readonly number[]
  /** Kept rows that are not protected (unpinned, out of a range, a former lead or anchor), ascending. */
  readonly stale: readonly number[]
  /** Protected rows before the boundary that are not kept yet, ascending. */
  readonly restore: readonly number[]
  /** The validity lead, if the earliest protected message cannot open a window. */
  readonly lead: number | undefined
  /** Protected rows before the boundary. */
  readonly headSize: number
  /** Their window tokens. */
  readonly headTokens: number
  /** Protected rows in all. */
  readonly size: number
  /** Their window tokens. */
  readonly tokens: number
  /** Whether every kept row was examined, so marks written from this plan are complete. */
  readonly complete: boolean

  private readonly facts = new Map<number, RowFacts>()
  private readonly protectedRows = new Set<number>()
  private readonly settledRows = new Set<number>()
  private readonly examined: ReadonlySet<number>
  private readonly staleSet: ReadonlySet<number>
  private readonly tailSet: ReadonlySet<number>
  private readonly tailTokenPrefix: number[]

  /**
   * @param view - the session
   * @param limits - the protected ranges in force
   * @param extra - rows whose protection just changed (a new pin, a pinned message skipped on append)
   */
  constructor(
    private readonly view: LedgerView,
    limits: WindowLimits,
    extra: readonly number[] = [],
  ) {
    const n = view.count
    const b = view.boundary
    // With nothing kept there is nothing to re-derive (marks live on kept rows only), unless the ranges
    // changed and the first-N range before the boundary must be looked at.
    const scope: ProtectionScope =
      view.keptCount === 0 && limits.first === 0
        ? { candidates: [], settledFirst: undefined, complete: true }
        : view.protectionScope(limits.first)
    this.complete = scope.complete
    const seeds: number[] = [...scope.candidates, ...extra, ...view.pinnedIn(b, n)]
    for (let s = b; s < Math.min(limits.first, n); s++) seeds.push(s)
    for (let s = Math.max(0, n - limits.last); s < n; s++) seeds.push(s)
    // Tail rows tied to kept rows (a call kept before the boundary whose result came after it).
    if (b < n && view.keptCount > 0) seeds.push(...view.crossingPartners(b, n))

    // Everything tied to the seeds by tool calls, grouped into connected components.
    const parent = new Map<number, number>()
    const find = (x: number): number => {
      let r = x
      while (parent.get(r) !== r) r = parent.get(r) as number
      let y = x
      while (y !== r) {
        const next = parent.get(y) as number
        parent.set(y, r)
        y = next
      }
      return r
    }
    let frontier = sortedUnique(seeds.filter((s) => s >= 0 && s < n))
    for (const s of frontier) parent.set(s, s)
    while (frontier.length > 0) {
      const next: number[] = []
      for (const [u, r] of view.links(frontier)) {
        for (const x of [u, r])
          if (!parent.has(x)) {
            parent.set(x, x)
            next.push(x)
          }
        const a = find(u)
        const c = find(r)
        if (a !== c) parent.set(a, c)
      }
      frontier = next
    }
    this.examined = new Set(parent.keys())
    for (const f of view.facts([...this.examined].sort((a, c) => a - c))) this.facts.set(f.seq, f)

    const members = new Map<number, number[]>()
    for (const s of this.examined) {
      const root = find(s)
      const list = members.get(root)
      if (list === undefined) members.set(root, [s])
      else list.push(s)
    }
    const raw: number[][] = []
    for (const list of members.values())
      if (list.some((s) => this.fact(s).pinned || s < limits.first || s >= n - limits.last)) raw.push(list)

    // Validity before protection: when nothing before the earliest protected message can open a window,
    // messages before the session's first plain user message (and what is tied to them) are not protected.
    const earliestOf = (lists: number[][]): number | undefined => {
      let e = scope.settledFirst
      for (const list of lists) for (const s of list) if (e === undefined || s < e) e = s
      return e
    }
    let prot = raw
    const opener = raw.length > 0 ? view.firstPlainUser(0) : undefined
    const eRaw = earliestOf(raw)
    if (eRaw !== undefined && !view.isTrimPoint(eRaw) && view.lastTrimPoint(0, eRaw, true) === undefined) {
      const cutoff = opener ?? n
      prot = raw.filter((list) => list.every((s) => s >= cutoff))
    }
    const permanentCutoff = opener ?? Infinity
    for (const list of prot) {
      for (const s of list) this.protectedRows.add(s)
      if (
        list.some((s) => this.fact(s).pinned || s < limits.first) &&
        list.every((s) => s >= permanentCutoff)
      )
        for (const s of list) this.settledRows.add(s)
    }
    const e = earliestOf(prot)
    this.lead = e !== undefined && !view.isTrimPoint(e) ? view.lastTrimPoint(0, e, true) : undefined
    if (this.lead !== undefined && !this.examined.has(this.lead)) this.load([this.lead])

    const stale: number[] = []
    const restore: number[] = []
    const tail: number[] = []
    for (const s of [...this.examined].sort((a, c) => a - c)) {
      const inP = this.has(s)
      if (s >= b) {
        if (inP) tail.push(s)
      } else if (this.fact(s).kept && !inP) stale.push(s)
      else if (!this.fact(s).kept && inP) restore.push(s)
    }
    if (this.lead !== undefined && !this.examined.has(this.lead)) {
      if (this.lead >= b) tail.push(this.lead)
      else if (!this.fact(this.lead).kept) restore.push(this.lead)
      tail.sort((a, c) => a - c)
      restore.sort((a, c) => a - c)
    }
    this.stale = stale
    this.restore = restore
    this.tail = tail
    this.staleSet = new Set(stale)
    this.tailSet = new Set(tail)
    this.tailTokenPrefix = [0]
    for (const s of tail)
      this.tailTokenPrefix.push((this.tailTokenPrefix.at(-1) as number) + this.tokensOf(s))
    this.headSize = view.keptCount - stale.length + restore.length
    this.headTokens = view.keptTokens - this.sumTokens(stale) + this.sumTokens(restore)
    this.size = this.headSize + tail.length
    this.tokens = this.headTokens + (this.tailTokenPrefix.at(-1) as number)
  }

  /** Fetches the facts of rows not looked at yet. */
  load(seqs: readonly number[]): void {
    const missing = sortedUnique(seqs.filter((s) => !this.facts.has(s) && s >= 0 && s < this.view.count))
    if (missing.length > 0) for (const f of this.view.facts(missing)) this.facts.set(f.seq, f)
  }

  /** Facts of one row (fetched on first use). */
  fact(seq: number): RowFacts {
    let f = this.facts.get(seq)
    if (f === undefined) {
      this.load([seq])
      f = this.facts.get(seq) ?? { seq, kept: false, recheck: false, pinned: false, windowTokens: 0 }
    }
    return f
  }

  /** Window tokens of one row. */
  tokensOf(seq: number): number {
    return this.fact(seq).windowTokens
  }

  /** Window tokens of several rows. */
  sumTokens(seqs: readonly number[]): number {
    this.load(seqs)
    return seqs.reduce((a, s) => a + this.tokensOf(s), 0)
  }

  /** Whether `seq` is kept now (before the boundary and marked kept). */
  isKept(seq: number): boolean {
    return seq < this.view.boundary && this.fact(seq).kept
  }

  /** Whether `seq` is protected (the lead included). */
  has(seq: number): boolean {
    if (seq === this.lead || this.protectedRows.has(seq)) return true
    if (this.examined.has(seq) || seq >= this.view.boundary) return false
    // A kept row nobody had to look at is settled, hence protected.
    return !this.complete && this.isKept(seq) && !this.staleSet.has(seq)
  }

  /** Kept rows the plan examined (their recheck marks may change), ascending. */
  examinedKept(): number[] {
    return [...this.examined].filter((s) => this.isKept(s)).sort((a, c) => a - c)
  }

  /**
   * Whether a row kept by a plan needs its protection re-derived by later plans: true unless it is
   * protected for a reason only an unpin or different ranges can take away.
   */
  needsRecheck(seq: number): boolean {
    if (this.examined.has(seq)) return !(this.settledRows.has(seq) && seq !== this.lead)
    // Rows the plan never examined: settled kept rows stay settled; anything else kept is an anchor.
    return !(this.isKept(seq) && !this.complete && !this.staleSet.has(seq))
  }

  /** Protected rows before `c` (for `c` at or after the boundary). */
  countBelow(c: number): number {
    return this.headSize + this.tailCountBelow(c)
  }

  /** Their window tokens. */
  tokensBelow(c: number): number {
    return this.headTokens + (this.tailTokenPrefix[this.tailCountBelow(c)] as number)
  }

  /** Rows to add to the settled kept rows to keep exactly the protected rows before `c` (≥ boundary). */
  additionsBelow(c: number): number[] {
    return [...this.restore, ...this.tail.slice(0, this.tailCountBelow(c))]
  }

  /** Whether `seq` is one of the protected tail rows. */
  inTail(seq: number): boolean {
    return this.tailSet.has(seq)
  }

  private tailCountBelow(c: number): number {
    let lo = 0
    let hi = this.tail.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((this.tail[mid] as number) < c) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/**
 * A message and everything tied to it by tool calls, transitively: what a pin protects with it.
 *
 * @param view - the session
 * @param seq - the message
 * @returns the seqs of its connected component, ascending
 */
export function toolComponent(view: LedgerView, seq: number): number[] {
  const seen = new Set([seq])
  let frontier = [seq]
  while (frontier.length > 0) {
    const next: number[] = []
    for (const link of view.links(frontier))
      for (const s of link)
        if (!seen.has(s)) {
          seen.add(s)
          next.push(s)
        }
    frontier = next
  }
  return [...seen].sort((a, b) => a - b)
}
