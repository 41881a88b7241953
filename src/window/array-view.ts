/**
 * A {@link LedgerView} over an in-memory array: the pure reference for the SQL store, and the engine of
 * `planWindow` for callers who keep messages in memory. Linear scans are fine here; clarity is the point.
 */
import { classifyMessage, isToolPairStart, isTrimPoint, type MessageClass } from '../messages/classify.js'
import type { MessageData } from '../messages/types.js'
import type { LedgerView } from './ledger-view.js'

/** Window state to plan from: where the tail starts and what stays before it. */
export interface WindowState {
  /** First seq of the tail. */
  boundary: number
  /** Seqs before the boundary that are in the window, ascending. */
  kept: readonly number[]
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
  readonly kept: readonly number[]
  readonly endsInToolUse: boolean
  private readonly trim: boolean[]
  private readonly plain: boolean[]
  private readonly pairStart: boolean[]
  private readonly tokens: readonly number[]
  private readonly cum: number[]
  private readonly pins: number[]
  private readonly links = new Map<number, number[]>()

  /**
   * @param messages - the whole session, in seq order
   * @param tokens - each message's token count
   * @param pinned - whether each message is pinned
   * @param state - the current window state
   */
  constructor(
    messages: readonly MessageData[],
    tokens: readonly number[],
    pinned: readonly boolean[],
    state: WindowState,
  ) {
    const classes = messages.map(classifyMessage)
    this.count = messages.length
    this.tokens = tokens
    this.cum = []
    let sum = 0
    for (const t of tokens) this.cum.push((sum += t))
    this.totalTokens = sum
    this.boundary = state.boundary
    this.kept = state.kept
    const last = classes.at(-1)
    this.endsInToolUse = last !== undefined && last.role === 'assistant' && last.toolUseIds.length > 0
    this.trim = classes.map((c, i) => isTrimPoint(c, classes[i + 1]))
    this.plain = classes.map((c) => c.plainUser)
    this.pairStart = classes.map((c, i) => isToolPairStart(c, classes[i + 1]))
    this.pins = pinned.flatMap((p, i) => (p ? [i] : []))
    for (const [u, r] of linkToolCalls(classes)) {
      this.links.set(u, [...(this.links.get(u) ?? []), r])
      this.links.set(r, [...(this.links.get(r) ?? []), u])
    }
  }

  pinned(): number[] {
    return [...this.pins]
  }
  partners(seqs: readonly number[]): number[] {
    return [...new Set(seqs.flatMap((s) => this.links.get(s) ?? []))]
  }
  crossingPartners(lo: number, hi: number): number[] {
    const out = new Set<number>()
    for (let s = lo; s < hi; s++) for (const q of this.links.get(s) ?? []) if (q < lo || q >= hi) out.add(q)
    return [...out]
  }
  tokensOf(seqs: readonly number[]): number[] {
    return seqs.map((s) => this.tokens[s] ?? 0)
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
  seekCumulative(tokens: number): number | undefined {
    const i = this.cum.findIndex((c) => c >= tokens)
    return i < 0 ? undefined : i
  }
  tokensBefore(seq: number): number {
    return seq <= 0 ? 0 : (this.cum[Math.min(seq, this.count) - 1] ?? 0)
  }
}
