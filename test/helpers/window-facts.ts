/**
 * What the window-rule oracle (`window-rules.ts`) derives from messages on its own, without the store's
 * planner: the tool calls a message makes and answers, which calls answer which, where a window may
 * start, and which messages are protected or must stay.
 */
import type { StoredMessageData } from '../../src/index.js'

/**
 * The toolUseIds a message calls and answers.
 *
 * @param message - the message
 * @returns its toolUse ids and its toolResult ids
 */
export function toolIds(message: StoredMessageData): { uses: string[]; results: string[] } {
  const uses: string[] = []
  const results: string[] = []
  for (const block of message.content) {
    if ('toolUse' in block) uses.push(block.toolUse.toolUseId)
    else if ('toolResult' in block) results.push(block.toolResult.toolUseId)
  }
  return { uses, results }
}

/**
 * Links each toolResult to the latest earlier toolUse with the same id that is still unanswered.
 *
 * @param messages - messages in order
 * @returns pairs `[useIndex, resultIndex]`, and the indices of toolUses left unanswered
 */
export function linkCalls(messages: readonly StoredMessageData[]): {
  links: [number, number][]
  open: number[]
} {
  const pending = new Map<string, number[]>()
  const links: [number, number][] = []
  messages.forEach((m, i) => {
    const { uses, results } = toolIds(m)
    for (const id of results) {
      const use = pending.get(id)?.pop()
      if (use !== undefined) links.push([use, i])
    }
    for (const id of uses) pending.set(id, [...(pending.get(id) ?? []), i])
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
export function isPlainUser(m: StoredMessageData): boolean {
  const { uses, results } = toolIds(m)
  return m.role === 'user' && uses.length === 0 && results.length === 0
}

/**
 * Strands' trim point: a user message without toolResult whose toolUse (if any) the next message answers.
 * A window may start there.
 *
 * @param archive - the session's messages in seq order
 * @param i - the seq to test
 * @returns true when a window may start at `i`
 */
export function isTrimPointAt(archive: readonly StoredMessageData[], i: number): boolean {
  const m = archive[i]
  if (m === undefined || m.role !== 'user' || toolIds(m).results.length > 0) return false
  if (toolIds(m).uses.length === 0) return true
  const next = archive[i + 1]
  return next !== undefined && toolIds(next).results.length > 0
}

/**
 * The latest plain user message before `seq`.
 *
 * @param archive - the session's messages in seq order
 * @param seq - where to look back from
 * @returns its seq, or undefined when there is none
 */
export function lastPlainUserBefore(archive: readonly StoredMessageData[], seq: number): number | undefined {
  for (let s = seq - 1; s >= 0; s--) if (isPlainUser(archive[s] as StoredMessageData)) return s
  return undefined
}

/**
 * The protected messages, from the archive alone: pinned ones, the first and last N, and the tool
 * partners of those, transitively — less what cannot be in any window because no user message before
 * it can open one.
 *
 * @param archive - the session's messages in seq order
 * @param pinned - the seqs of pinned messages
 * @param ranges - the protected ranges in force
 * @returns the protected seqs
 */
export function protectedSet(
  archive: readonly StoredMessageData[],
  pinned: ReadonlySet<number>,
  ranges: { readonly first?: number; readonly last?: number },
): Set<number> {
  const n = archive.length
  const { links } = linkCalls(archive)
  const partners = new Map<number, number[]>()
  for (const [u, r] of links) {
    partners.set(u, [...(partners.get(u) ?? []), r])
    partners.set(r, [...(partners.get(r) ?? []), u])
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
  const earliest = Math.min(...prot)
  if (prot.size > 0 && !isTrimPointAt(archive, earliest) && !archive.slice(0, earliest).some(isPlainUser)) {
    const opener = archive.findIndex((m, s) => s >= earliest && isPlainUser(m))
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
 * @param archive - the session's messages in seq order
 * @param prot - the protected seqs
 * @returns the protected seqs with that lead
 */
export function withLead(archive: readonly StoredMessageData[], prot: ReadonlySet<number>): Set<number> {
  const out = new Set(prot)
  if (prot.size === 0) return out
  const first = Math.min(...prot)
  if (!isTrimPointAt(archive, first)) {
    const lead = lastPlainUserBefore(archive, first)
    if (lead !== undefined) out.add(lead)
  }
  return out
}

/**
 * What must stay whatever the limits: the protected messages with their lead, and a call in flight with
 * a user message before it.
 *
 * @param archive - the session's messages in seq order
 * @param prot - the protected seqs
 * @returns the seqs that must stay
 */
export function requiredSet(archive: readonly StoredMessageData[], prot: ReadonlySet<number>): Set<number> {
  const out = withLead(archive, prot)
  const n = archive.length
  const last = archive[n - 1]
  if (last !== undefined && last.role === 'assistant' && toolIds(last).uses.length > 0 && !out.has(n - 1)) {
    if (![...out].some((s) => s < n - 1)) {
      const anchor = lastPlainUserBefore(archive, n - 1)
      if (anchor !== undefined) out.add(anchor)
    }
    out.add(n - 1)
  }
  return out
}
