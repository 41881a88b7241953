/**
 * The DESIGN §4 rules, checked from the outside: computed from the archive and the pins alone, never by
 * calling the code under test's own planner.
 */
import { expect } from 'vitest'
import type { StoredMessageData, WindowLimits, WindowResult } from '../../src/index.js'

function ids(m: StoredMessageData, key: 'toolUse' | 'toolResult'): string[] {
  return m.content.flatMap((b) =>
    key === 'toolUse' && 'toolUse' in b
      ? [b.toolUse.toolUseId]
      : key === 'toolResult' && 'toolResult' in b
        ? [b.toolResult.toolUseId]
        : [],
  )
}

/**
 * The protected seqs: pins, first/last ranges, and everything linked to them by tool-use ids (a result
 * links to the latest earlier unanswered use with its id), transitively.
 */
export function protectedSet(
  archive: readonly StoredMessageData[],
  pinned: readonly boolean[],
  limits: Pick<WindowLimits, 'first' | 'last'>,
): Set<number> {
  const n = archive.length
  const links = new Map<number, number[]>()
  const open = new Map<string, number[]>()
  archive.forEach((m, i) => {
    for (const id of ids(m, 'toolResult')) {
      const u = open.get(id)?.pop()
      if (u !== undefined) {
        links.set(u, [...(links.get(u) ?? []), i])
        links.set(i, [...(links.get(i) ?? []), u])
      }
    }
    for (const id of ids(m, 'toolUse')) open.set(id, [...(open.get(id) ?? []), i])
  })
  const out = new Set<number>()
  const stack: number[] = []
  for (let i = 0; i < n; i++) if (pinned[i] || i < limits.first || i >= n - limits.last) stack.push(i)
  while (stack.length > 0) {
    const s = stack.pop() as number
    if (out.has(s)) continue
    out.add(s)
    stack.push(...(links.get(s) ?? []))
  }
  return out
}

/**
 * Asserts the window is valid for a provider: starts with a user message without toolResult, every
 * toolResult follows its toolUse, every toolUse is answered later unless it is in the newest message.
 */
export function expectValidForProvider(window: readonly StoredMessageData[]): void {
  if (window.length === 0) return
  const first = window[0] as StoredMessageData
  expect(first.role, 'window starts with a user message').toBe('user')
  expect(ids(first, 'toolResult'), 'window does not start with a toolResult').toStrictEqual([])
  const seen = new Set<string>()
  window.forEach((m) => {
    for (const id of ids(m, 'toolResult'))
      expect(seen.has(id), `toolResult ${id} has its toolUse before it`).toBe(true)
    for (const id of ids(m, 'toolUse')) seen.add(id)
  })
  const answered = new Set(window.flatMap((m) => ids(m, 'toolResult')))
  window.forEach((m, i) => {
    if (i === window.length - 1) return
    for (const id of ids(m, 'toolUse'))
      expect(answered.has(id), `toolUse ${id} is answered in the window`).toBe(true)
  })
}

/** Everything the rules say about a window, given what the store reports. */
export interface RuleCheck {
  archive: readonly StoredMessageData[]
  pinned: readonly boolean[]
  tokens: readonly number[]
  windowSeqs: readonly number[]
  limits: WindowLimits
  /** The result of the applyWindow/reduce that produced this window, when there was one. */
  result?: WindowResult
  mode?: 'apply' | 'overflow'
  previousBoundary?: number
  boundary: number
}

/**
 * Asserts DESIGN §4 rules 2–5 for one window.
 *
 * @param c - the archive, pins, the window and the operation's result
 */
export function expectWindowRules(c: RuleCheck): void {
  const window = c.windowSeqs.map((s) => c.archive[s] as StoredMessageData)
  // Ordered, unique, and every message at or after the boundary is in it.
  expect([...c.windowSeqs].sort((a, b) => a - b)).toStrictEqual(c.windowSeqs)
  expect(new Set(c.windowSeqs).size).toBe(c.windowSeqs.length)
  for (let s = c.boundary; s < c.archive.length; s++) expect(c.windowSeqs).toContain(s)
  if (c.previousBoundary !== undefined) expect(c.boundary).toBeGreaterThanOrEqual(c.previousBoundary)
  expectValidForProvider(window)
  const prot = protectedSet(c.archive, c.pinned, c.limits)
  for (const s of prot) expect(c.windowSeqs, `protected message ${s} is in the window`).toContain(s)
  const r = c.result
  if (r === undefined) return
  const windowTokens = c.windowSeqs.reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  expect(r.windowMessages).toBe(c.windowSeqs.length)
  expect(r.windowTokens).toBe(windowTokens)
  // Bounded: the budget is a hard limit unless the protected set alone breaks it (the validity lead,
  // at most one message, may come on top of the protected set).
  if (c.limits.tokenBudget !== undefined && (c.mode === 'apply' || r.evicted > 0)) {
    if (!r.protectedExceedsLimit) expect(windowTokens).toBeLessThanOrEqual(c.limits.tokenBudget)
  }
  // The message count may exceed windowSize only by Strands' anchor, or when the turn has no trim point.
  if (
    c.mode === 'apply' &&
    r.reason !== 'no-valid-cut' &&
    r.cut !== 'latest-trim-point' &&
    !r.protectedExceedsLimit
  ) {
    const slack = r.cut === 'tool-pair' ? 1 : 0
    if (r.reason !== 'within-limits' || r.evicted === 0)
      expect(c.windowSeqs.length).toBeLessThanOrEqual(c.limits.windowSize + slack)
  }
  // Only what must stay may break a limit: the protected set with its validity lead, and a call in
  // flight with a user message before it.
  const required = requiredSet(c.archive, prot)
  const requiredTokens = [...required].reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  expect(r.protectedExceedsLimit).toBe(
    required.size > c.limits.windowSize || requiredTokens > (c.limits.tokenBudget ?? Infinity),
  )
}

function lastPlainUserBefore(archive: readonly StoredMessageData[], seq: number): number | undefined {
  for (let s = seq - 1; s >= 0; s--) {
    const m = archive[s] as StoredMessageData
    if (m.role === 'user' && ids(m, 'toolUse').length === 0 && ids(m, 'toolResult').length === 0) return s
  }
  return undefined
}

/** A window must open with a user message: if the earliest protected one cannot, the plain user before it joins. */
export function withLead(archive: readonly StoredMessageData[], prot: Set<number>): Set<number> {
  const out = new Set(prot)
  if (prot.size === 0) return out
  const first = Math.min(...prot)
  if (!isTrimPointAt(archive, first)) {
    const lead = lastPlainUserBefore(archive, first)
    if (lead !== undefined) out.add(lead)
  }
  return out
}

/** What must stay whatever the limits: protected + lead, and a call in flight with a user message before it. */
export function requiredSet(archive: readonly StoredMessageData[], prot: Set<number>): Set<number> {
  const out = withLead(archive, prot)
  const n = archive.length
  const last = archive[n - 1]
  if (last !== undefined && last.role === 'assistant' && ids(last, 'toolUse').length > 0 && !out.has(n - 1)) {
    if (![...out].some((s) => s < n - 1)) {
      const anchor = lastPlainUserBefore(archive, n - 1)
      if (anchor !== undefined) out.add(anchor)
    }
    out.add(n - 1)
  }
  return out
}

/** Strands' trim point: a user message without toolResult whose toolUse (if any) the next message answers. */
export function isTrimPointAt(archive: readonly StoredMessageData[], i: number): boolean {
  const m = archive[i] as StoredMessageData
  if (m.role !== 'user' || ids(m, 'toolResult').length > 0) return false
  if (ids(m, 'toolUse').length === 0) return true
  const next = archive[i + 1]
  return next !== undefined && ids(next, 'toolResult').length > 0
}

/**
 * Progress: an overflow reduction that evicted nothing must have had no valid cut that removes an
 * unprotected message — no trim point after an unprotected message of the window.
 */
export function expectProgress(c: RuleCheck & { before: readonly number[]; boundaryBefore: number }): void {
  if (c.result === undefined || c.result.evicted > 0) return
  const prot = withLead(c.archive, protectedSet(c.archive, c.pinned, c.limits))
  const unprotected = c.before.filter((s) => !prot.has(s))
  if (unprotected.length === 0) return
  const firstUnprotected = Math.min(...unprotected)
  for (let t = Math.max(c.boundaryBefore, firstUnprotected + 1); t < c.archive.length; t++)
    expect(
      isTrimPointAt(c.archive, t),
      `trim point ${t} would have let unprotected ${firstUnprotected} go`,
    ).toBe(false)
}
