/**
 * A {@link LedgerView} over an in-memory array: the pure reference for the SQL store, and the engine of
 * `planWindow` for callers who keep messages in memory. Linear scans are fine here; clarity is the point.
 * Nothing counts as settled here: every kept row and every pin is re-derived on each plan, so the
 * reference computes protection from scratch where the store trusts its bookkeeping.
 */
import { classifyMessage, isToolPairStart, isTrimPoint, type MessageClass } from '../messages/classify.js'
import type { MessageData } from '../messages/types.js'
import type { LedgerView, ProtectionScope, RowFacts, TokenCorrection } from './ledger-view.js'

/** Window state to plan from: where the tail starts and what stays before it. */
export interface WindowState {
  /** First seq of the tail. */
  boundary: number
  /** Seqs before the boundary that are in the window, ascending. */
  kept: readonly number[]
  /** The tokens of the summary the window shows between the kept rows and the tail; omitted for none. */
  summaryTokens?: number | undefined
}

/**
 * Links each toolResult to the latest earlier toolUse with the same id that is still unanswered — the
 * same rule the store applies on append.
 *
 * @param classes - the classified messages, in order
 * @returns pairs `[useIndex, resultIndex]`
 */
export function linkToolCalls(classes: readonly MessageClass[]): [number, number][] {
  const open = new Map<string, number[]>()
  const links: [number, number][] = []
  classes.forEach((c, i) => {
    for (const id of c.toolResultIds) {
      const pending = open.get(id)
      const use = pending?.pop()
      if (use !== undefined) links.push([use, i])
    }
    for (const id of c.toolUseIds) {
      const pending = open.get(id) ?? []
      pending.push(i)
      open.set(id, pending)
    }
  })
  return links
}

/** A ledger held in memory. */
export class ArrayLedgerView implements LedgerView {
  readonly count: number
  readonly totalTokens: number
  readonly boundary: number
  readonly endsInToolUse: boolean
  readonly keptCount: number
  readonly keptTokens: number
  readonly summaryTokens: number | undefined
  private readonly kept: ReadonlySet<number>
  private readonly trim: boolean[]
  private readonly plain: boolean[]
  private readonly pairStart: boolean[]
  private readonly split: boolean[]
  private readonly cum: number[]
  private readonly windowTokens: readonly number[]
  private readonly tokens: readonly number[]
  private readonly pinnedFlags: readonly boolean[]
  private readonly pins: number[]
  private readonly links_ = new Map<number, [number, number][]>()

  /**
   * @param messages - the whole session, in seq order
   * @param tokens - each message's token count
   * @param pinned - whether each message is pinned
   * @param state - the current window state
   * @param windowTokens - what the window counts for each message when it shows a replacement; `tokens` otherwise
   */
  constructor(
    messages: readonly MessageData[],
    tokens: readonly number[],
    pinned: readonly boolean[],
    state: WindowState,
    windowTokens: readonly (number | undefined)[] = [],
  ) {
    const classes = messages.map(classifyMessage)
    this.count = messages.length
    this.tokens = tokens
    this.windowTokens = messages.map((_, i) => windowTokens[i] ?? tokens[i] ?? 0)
    this.cum = []
    let sum = 0
    for (let i = 0; i < this.count; i++) this.cum.push((sum += tokens[i] ?? 0))
    this.totalTokens = sum
    this.boundary = state.boundary
    this.summaryTokens = state.summaryTokens
    this.kept = new Set(state.kept.filter((s) => s >= 0 && s < state.boundary && s < this.count))
    this.keptCount = this.kept.size
    this.keptTokens = [...this.kept].reduce((a, s) => a + (this.windowTokens[s] ?? 0), 0)
    const last = classes.at(-1)
    this.endsInToolUse = last !== undefined && last.role === 'assistant' && last.toolUseIds.length > 0
    this.trim = classes.map((c, i) => isTrimPoint(c, classes[i + 1]))
    this.plain = classes.map((c) => c.plainUser)
    this.pairStart = classes.map((c, i) => isToolPairStart(c, classes[i + 1]))
    this.split = classes.map(
      (c, i) =>
        c.toolResultIds.length === 0 &&
        (c.toolUseIds.length === 0 || this.pairStart[i] === true || this.trim[i] === true),
    )
    this.pinnedFlags = messages.map((_, i) => pinned[i] === true)
    this.pins = this.pinnedFlags.flatMap((p, i) => (p ? [i] : []))
    for (const link of linkToolCalls(classes))
      for (const end of link) this.links_.set(end, [...(this.links_.get(end) ?? []), link])
  }

  /** Nothing is settled in memory: every kept row, every pin and the first-N range are re-derived. */
  protectionScope(first: number): ProtectionScope {
    const candidates = new Set([...this.kept, ...this.pins.filter((s) => s < this.boundary)])
    for (let s = 0; s < Math.min(first, this.boundary); s++) candidates.add(s)
    return { candidates: [...candidates].sort((a, b) => a - b), settledFirst: undefined, complete: true }
  }
  firstKept(limit: number): number[] {
    return [...this.kept].sort((a, b) => a - b).slice(0, limit)
  }
  facts(seqs: readonly number[]): RowFacts[] {
    return [...new Set(seqs)]
      .filter((s) => s >= 0 && s < this.count)
      .sort((a, b) => a - b)
      .map((seq) => ({
        seq,
        kept: this.kept.has(seq),
        recheck: false,
        pinned: this.pinnedFlags[seq] === true,
        windowTokens: this.windowTokens[seq] ?? 0,
      }))
  }
  pinnedIn(from: number, to: number): number[] {
    return this.pins.filter((s) => s >= from && s < to)
  }
  links(seqs: readonly number[]): [number, number][] {
    const out = new Map<string, [number, number]>()
    for (const s of seqs) for (const link of this.links_.get(s) ?? []) out.set(link.join(), link)
    return [...out.values()]
  }
  crossingPartners(lo: number, hi: number): number[] {
    const out = new Set<number>()
    for (let s = lo; s < hi; s++)
      for (const link of this.links_.get(s) ?? []) for (const q of link) if (q < lo || q >= hi) out.add(q)
    return [...out]
  }
  isTrimPoint(seq: number): boolean {
    return this.trim[seq] === true
  }
  isPlainUser(seq: number): boolean {
    return this.plain[seq] === true
  }
  firstTrimPoint(from: number, to: number): number | undefined {
    for (let s = from; s < to; s++) if (this.trim[s]) return s
    return undefined
  }
  lastTrimPoint(from: number, to: number, plainOnly: boolean): number | undefined {
    for (let s = to - 1; s >= from; s--) if (plainOnly ? this.plain[s] : this.trim[s]) return s
    return undefined
  }
  firstPlainUser(from: number): number | undefined {
    for (let s = from; s < this.count; s++) if (this.plain[s]) return s
    return undefined
  }
  firstPairStart(from: number, to: number): number | undefined {
    for (let s = from; s < to; s++) if (this.pairStart[s]) return s
    return undefined
  }
  lastPairStart(from: number, to: number): number | undefined {
    for (let s = to - 1; s >= from; s--) if (this.pairStart[s]) return s
    return undefined
  }
  firstSplitPoint(from: number, to: number): number | undefined {
    for (let s = Math.max(0, from); s < Math.min(to, this.count); s++) if (this.split[s]) return s
    return undefined
  }
  tokensBefore(seq: number): number {
    return seq <= 0 ? 0 : (this.cum[Math.min(seq, this.count) - 1] ?? 0)
  }
  corrections(from: number, to: number): TokenCorrection[] {
    const out: TokenCorrection[] = []
    for (let s = Math.max(0, from); s < Math.min(to, this.count); s++) {
      const delta = (this.windowTokens[s] ?? 0) - (this.tokens[s] ?? 0)
      if (delta !== 0) out.push({ seq: s, delta })
    }
    return out
  }
}
