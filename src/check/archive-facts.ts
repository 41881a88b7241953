/**
 * What the window rules derive from a session's archive on their own, without the store's planner
 * (docs/design.md, "Window rules"): the tool calls a message makes and answers, which calls answer which,
 * where a window may start, and which messages are protected or must stay. A message is reduced to its
 * {@link MessageShape} (role and tool ids), so a checker can hold a whole archive of a big session in
 * memory without its bodies.
 *
 * The window rules (`window-rules.ts`) use these, and so do the property tests' rules about the limits
 * (`step-rules.ts`).
 */
import type { Role, StoredMessageData } from '../messages/types.js'

/** What the window rules need of one message: its role and the tool ids it calls and answers. */
export interface MessageShape {
  /** `'user'` or `'assistant'`. */
  readonly role: Role
  /** The toolUseIds of its toolUse blocks, in order. */
  readonly uses: readonly string[]
  /** The toolUseIds its toolResult blocks answer, in order. */
  readonly results: readonly string[]
  /**
   * A user-side message that neither prompts nor answers (an AI SDK tool message of approval responses,
   * read through its skeleton): no window opens at it.
   */
  readonly notPlain?: true
  /** It carries the answers to the calls before it on (an AI SDK tool message): they stay open past it. */
  readonly carries?: true
}

/** The mark of a skeleton of a message that carries answers on: a symbol, so no stored body can carry it. */
export const CARRIES: unique symbol = Symbol('context-ledger.carries')

/**
 * The mark of a skeleton (`skeleton.ts`) of such a message: a symbol, so no stored body can carry it.
 */
export const NOT_PLAIN: unique symbol = Symbol('context-ledger.not-plain')

/**
 * The toolUseIds a message calls and answers.
 *
 * @param message - the message (only `role` and `content` are read)
 * @returns its shape
 */
export function shapeOf(message: Pick<StoredMessageData, 'role' | 'content'>): MessageShape {
  const uses: string[] = []
  const results: string[] = []
  for (const block of message.content) {
    if ('toolUse' in block) uses.push(block.toolUse.toolUseId)
    else if ('toolResult' in block) results.push(block.toolResult.toolUseId)
  }
  // Most messages have no tool blocks: they share one shape per role, so a big archive costs a pointer
  // a message.
  const marks = message as { [NOT_PLAIN]?: true; [CARRIES]?: true }
  if (marks[NOT_PLAIN] === true || marks[CARRIES] === true)
    return {
      role: message.role,
      uses,
      results,
      ...(marks[NOT_PLAIN] === true ? { notPlain: true as const } : {}),
      ...(marks[CARRIES] === true ? { carries: true as const } : {}),
    }
  if (uses.length === 0 && results.length === 0) return PLAIN[message.role]
  return { role: message.role, uses, results }
}

const PLAIN: Readonly<Record<Role, MessageShape>> = Object.freeze({
  user: Object.freeze({ role: 'user', uses: Object.freeze([]), results: Object.freeze([]) }),
  assistant: Object.freeze({ role: 'assistant', uses: Object.freeze([]), results: Object.freeze([]) }),
})

/**
 * Links each toolResult to the latest earlier toolUse with the same id that is still unanswered.
 *
 * @param shapes - messages in order
 * @returns pairs `[useIndex, resultIndex]`, and the indices of toolUses left unanswered
 */
export function linkCalls(shapes: readonly MessageShape[]): { links: [number, number][]; open: number[] } {
  const pending = new Map<string, number[]>()
  const links: [number, number][] = []
  shapes.forEach((m, i) => {
    for (const id of m.results) {
      const use = pending.get(id)?.pop()
      if (use !== undefined) links.push([use, i])
    }
    for (const id of m.uses) {
      const waiting = pending.get(id)
      if (waiting === undefined) pending.set(id, [i])
      else waiting.push(i)
    }
  })
  const open = [...pending.values()].flat()
  return { links, open }
}

/**
 * Whether a message is a plain user message: no toolUse, no toolResult.
 *
 * @param m - the message
 * @returns true for a plain user message
 */
export function isPlainUser(m: MessageShape): boolean {
  return m.role === 'user' && m.uses.length === 0 && m.results.length === 0 && m.notPlain !== true
}

/**
 * Strands' trim point: a user message without toolResult whose toolUse (if any) the next message answers.
 * A window may start there.
 *
 * @param shapes - the session's messages in seq order
 * @param i - the seq to test
 * @returns true when a window may start at `i`
 */
export function isTrimPointAt(shapes: readonly MessageShape[], i: number): boolean {
  const m = shapes[i]
  if (m === undefined || m.role !== 'user' || m.results.length > 0) return false
  if (m.uses.length === 0) return m.notPlain !== true
  const next = shapes[i + 1]
  return next !== undefined && next.results.length > 0
}

/**
 * The latest plain user message before `seq`.
 *
 * @param shapes - the session's messages in seq order
 * @param seq - where to look back from
 * @returns its seq, or undefined when there is none
 */
export function lastPlainUserBefore(shapes: readonly MessageShape[], seq: number): number | undefined {
  for (let s = seq - 1; s >= 0; s--) if (isPlainUser(shapes[s] as MessageShape)) return s
  return undefined
}

/**
 * The latest message that can open a window: where the newest turn starts.
 *
 * @param shapes - the session's messages in seq order
 * @returns its seq, or undefined when no message can open a window
 */
export function newestTurnStart(shapes: readonly MessageShape[]): number | undefined {
  for (let s = shapes.length - 1; s >= 0; s--) if (isTrimPointAt(shapes, s)) return s
  return undefined
}

function smallest(seqs: Iterable<number>): number {
  let min = Infinity
  for (const s of seqs) if (s < min) min = s
  return min
}

/**
 * The protected messages, from the archive alone: pinned ones, the first and last N, and the tool
 * partners of those, transitively — less what cannot be in any window because no user message before
 * it can open one.
 *
 * @param shapes - the session's messages in seq order
 * @param pinned - the seqs of pinned messages
 * @param ranges - the protected ranges in force
 * @returns the protected seqs
 */
export function protectedSet(
  shapes: readonly MessageShape[],
  pinned: Iterable<number>,
  ranges: { readonly first?: number | undefined; readonly last?: number | undefined },
): Set<number> {
  const n = shapes.length
  const { links } = linkCalls(shapes)
  const partners = new Map<number, number[]>()
  const link = (a: number, b: number): void => {
    const list = partners.get(a)
    if (list === undefined) partners.set(a, [b])
    else list.push(b)
  }
  for (const [u, r] of links) {
    link(u, r)
    link(r, u)
  }
  const prot = new Set<number>()
  const frontier: number[] = []
  const protect = (s: number): void => {
    if (!prot.has(s)) {
      prot.add(s)
      frontier.push(s)
    }
  }
  for (const s of pinned) protect(s)
  for (let s = 0; s < Math.min(ranges.first ?? 0, n); s++) protect(s)
  for (let s = Math.max(0, n - (ranges.last ?? 0)); s < n; s++) protect(s)
  while (frontier.length > 0) for (const q of partners.get(frontier.pop() as number) ?? []) protect(q)
  // Validity before protection: when no plain user message precedes the earliest protected one, nothing
  // before the session's first plain user message can open a window, so it (and what is tied to it by
  // tool calls) is not protected.
  const earliest = smallest(prot)
  if (
    prot.size > 0 &&
    !isTrimPointAt(shapes, earliest) &&
    lastPlainUserBefore(shapes, earliest) === undefined
  ) {
    let opener = -1
    for (let s = earliest; s < n && opener < 0; s++) if (isPlainUser(shapes[s] as MessageShape)) opener = s
    const drop = [...prot].filter((s) => s < (opener < 0 ? n : opener))
    while (drop.length > 0) {
      const s = drop.pop() as number
      if (prot.delete(s)) drop.push(...(partners.get(s) ?? []).filter((q) => prot.has(q)))
    }
  }
  return prot
}

/**
 * A window must open with a user message: if the earliest protected one cannot, the plain user message
 * before it joins.
 *
 * @param shapes - the session's messages in seq order
 * @param prot - the protected seqs
 * @returns the protected seqs with that lead
 */
export function withLead(shapes: readonly MessageShape[], prot: ReadonlySet<number>): Set<number> {
  const out = new Set(prot)
  if (prot.size === 0) return out
  const first = smallest(prot)
  if (!isTrimPointAt(shapes, first)) {
    const lead = lastPlainUserBefore(shapes, first)
    if (lead !== undefined) out.add(lead)
  }
  return out
}

/**
 * What must stay whatever the limits: the protected messages with their lead, and a call in flight with
 * a user message before it.
 *
 * @param shapes - the session's messages in seq order
 * @param prot - the protected seqs
 * @returns the seqs that must stay
 */
export function requiredSet(shapes: readonly MessageShape[], prot: ReadonlySet<number>): Set<number> {
  const out = withLead(shapes, prot)
  const n = shapes.length
  const last = shapes[n - 1]
  if (last !== undefined && last.role === 'assistant' && last.uses.length > 0 && !out.has(n - 1)) {
    if (![...out].some((s) => s < n - 1)) {
      const anchor = lastPlainUserBefore(shapes, n - 1)
      if (anchor !== undefined) out.add(anchor)
    }
    out.add(n - 1)
  }
  return out
}
