/**
 * The limits and reporting half of DESIGN §4 — bounded windows, honest `protectedExceedsLimit`, progress
 * on overflow — checked from the outside against what `applyWindow()` / `reduce()` returned. The rules
 * that hold at every moment (valid for providers, protection, archive, boundary) are the shared checker's,
 * `test/helpers/window-invariants.ts`, which this builds on.
 */
import { expect } from 'vitest'
import type { ContextStore, StoredMessageData, WindowLimits, WindowResult } from '../../src/index.js'
import { assertWindowRules } from '../helpers/window-invariants.js'

function ids(m: StoredMessageData, key: 'toolUse' | 'toolResult'): string[] {
  return m.content.flatMap((b) =>
    key === 'toolUse' && 'toolUse' in b
      ? [b.toolUse.toolUseId]
      : key === 'toolResult' && 'toolResult' in b
        ? [b.toolResult.toolUseId]
        : [],
  )
}

/** Strands' trim point: a user message without toolResult whose toolUse (if any) the next message answers. */
export function isTrimPointAt(archive: readonly StoredMessageData[], i: number): boolean {
  const m = archive[i] as StoredMessageData
  if (m.role !== 'user' || ids(m, 'toolResult').length > 0) return false
  if (ids(m, 'toolUse').length === 0) return true
  const next = archive[i + 1]
  return next !== undefined && ids(next, 'toolResult').length > 0
}

function lastPlainUserBefore(archive: readonly StoredMessageData[], seq: number): number | undefined {
  for (let s = seq - 1; s >= 0; s--) {
    const m = archive[s] as StoredMessageData
    if (m.role === 'user' && ids(m, 'toolUse').length === 0 && ids(m, 'toolResult').length === 0) return s
  }
  return undefined
}

/** A window must open with a user message: if the earliest protected one cannot, the plain user before it joins. */
function withLead(archive: readonly StoredMessageData[], prot: ReadonlySet<number>): Set<number> {
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
function requiredSet(archive: readonly StoredMessageData[], prot: ReadonlySet<number>): Set<number> {
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

/** One step of a property run: the store after the step, and what the step returned. */
export interface RuleCheck {
  store: ContextStore
  sessionId: string
  archive: readonly StoredMessageData[]
  tokens: readonly number[]
  windowSeqs: readonly number[]
  limits: WindowLimits
  /** The result of the applyWindow/reduce that produced this window, when there was one. */
  result?: WindowResult | undefined
  mode?: 'apply' | 'overflow'
  previousBoundary?: number
}

/**
 * Asserts every DESIGN §4 rule after one step: the shared invariants, then the limits the result claims.
 *
 * @param c - the store and the step's result
 * @returns the protected seqs the shared checker computed
 */
export function expectWindowRules(c: RuleCheck): Set<number> {
  const report = assertWindowRules(c.store, c.sessionId, c.limits, {
    ...(c.previousBoundary === undefined ? {} : { previousBoundary: c.previousBoundary }),
  })
  expect(report.windowSeqs).toStrictEqual(c.windowSeqs)
  const prot = new Set(report.protectedSeqs)
  const r = c.result
  if (r === undefined) return prot
  const windowTokens = c.windowSeqs.reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  expect(r.windowMessages).toBe(c.windowSeqs.length)
  expect(r.windowTokens).toBe(windowTokens)
  expect(r.exceedsLimit).toBe(
    c.windowSeqs.length > c.limits.windowSize || windowTokens > (c.limits.tokenBudget ?? Infinity),
  )
  // What may break a limit: what must stay (the protected set with its validity lead, a call in flight
  // with a user message before it) and the newest turn — from the latest trim point on.
  const required = requiredSet(c.archive, prot)
  let newest = -1
  for (let s = c.archive.length - 1; s >= 0 && newest < 0; s--) if (isTrimPointAt(c.archive, s)) newest = s
  const beyond = c.windowSeqs.filter((s) => !required.has(s) && (newest < 0 || s < newest))
  // Bounded: the budget is a hard limit for everything else.
  if (
    c.limits.tokenBudget !== undefined &&
    (c.mode === 'apply' || r.evicted > 0) &&
    windowTokens > c.limits.tokenBudget
  )
    expect(beyond, 'only protected messages and the newest turn may break the budget').toStrictEqual([])
  // The message count may exceed windowSize only by one anchor (Strands' tool-pair anchor, or the newest
  // turn's opening kept before the boundary), when the turn has no trim point, or by what must stay.
  const boundary = c.store.session(c.sessionId)?.boundary ?? 0
  const anchor = r.cut === 'tool-pair' || (newest >= 0 && newest < boundary) ? 1 : 0
  if (
    c.mode === 'apply' &&
    r.reason !== 'no-valid-cut' &&
    r.cut !== 'latest-trim-point' &&
    !r.protectedExceedsLimit &&
    c.windowSeqs.length > c.limits.windowSize + anchor
  )
    expect(beyond, 'only protected messages and the newest turn may break windowSize').toStrictEqual([])
  // protectedExceedsLimit says exactly whether what must stay alone breaks a limit.
  const requiredTokens = [...required].reduce((a, s) => a + (c.tokens[s] ?? 0), 0)
  expect(r.protectedExceedsLimit).toBe(
    required.size > c.limits.windowSize || requiredTokens > (c.limits.tokenBudget ?? Infinity),
  )
  return prot
}

/**
 * Progress: an overflow reduction that evicted nothing must have had no valid cut that removes an
 * unprotected message — no trim point after an unprotected message of the window.
 *
 * @param c - the step, the window before it, and the protected seqs
 */
export function expectProgress(
  c: RuleCheck & { before: readonly number[]; boundaryBefore: number; protectedSeqs: ReadonlySet<number> },
): void {
  if (c.result === undefined || c.result.evicted > 0) return
  const prot = withLead(c.archive, c.protectedSeqs)
  const unprotected = c.before.filter((s) => !prot.has(s))
  if (unprotected.length === 0) return
  const firstUnprotected = Math.min(...unprotected)
  for (let t = Math.max(c.boundaryBefore, firstUnprotected + 1); t < c.archive.length; t++)
    expect(
      isTrimPointAt(c.archive, t),
      `trim point ${t} would have let unprotected ${firstUnprotected} go`,
    ).toBe(false)
}
