/**
 * The reference model of one branch for the branch property tests (test/window/branches-match-reference
 * .test.ts): a branch is its own full array — the whole conversation it sees, inherited rows copied — with
 * its own window state (boundary, kept rows, pins, the summary it shows, the limits last applied). Windows
 * are planned with the pure planner (`planWindow`, `planCut` over `ArrayLedgerView`, `protectedToRestore`);
 * nothing here reads the store. A fork copies the array and the state (docs: BRANCH-SPEC, "Semantics").
 */
import {
  estimateTokens,
  planWindow,
  type FoldRequest,
  type StoredMessageData,
  type WindowLimits,
  type WindowResult,
} from '../../src/index.js'
import { classifyMessage, type MessageClass } from '../../src/messages/classify.js'
import { strandsFormat } from '../../src/formats/strands/index.js'
import { INTERRUPTED_TOOL_RESULT_TEXT } from '../../src/store/interrupted-tool-results.js'
import { ArrayLedgerView, linkToolCalls } from '../../src/window/array-view.js'
import { planCut, protectedToRestore, type CutDecision, type ReduceMode } from '../../src/window/plan-cut.js'
import { firstPlainUser } from './conversations.js'

/** The summary a branch's window shows. */
export interface ShownSummary {
  /** Its `summaries.id`. */
  readonly id: number
  /** Its message, as `summaries()` returns it. */
  readonly message: StoredMessageData
  /** Its tokens. */
  readonly tokens: number
  /** The boundary after the fold that made it: it stands for messages before this seq. */
  readonly toBoundary: number
  /** Whether the branch made it (false: an ancestor did, and the branch inherited it at its fork). */
  readonly own: boolean
}

/** One branch: its conversation and its window state, all its own. */
export interface BranchState {
  /** The whole conversation it sees, in seq order. */
  archive: StoredMessageData[]
  /** Each message's tokens. */
  tokens: number[]
  /** The window form of each message that has one (a late result's text form). */
  forms: (StoredMessageData | undefined)[]
  /** Whether each message is pinned in this branch. */
  pinned: boolean[]
  /** First seq of the tail. */
  boundary: number
  /** Seqs before the boundary in the window, ascending. */
  kept: number[]
  /** The summary the window shows. */
  summary: ShownSummary | undefined
  /** The limits the window was last planned with (`sessions.limits`); undefined: never. */
  limits: WindowLimits | undefined
  /** The pin log it sees: what its ancestors logged about what it inherits before the fork, then its own. */
  pinLog: { seq: number; action: 'pin' | 'unpin' }[]
}

/** An empty branch (a root before its first append). */
export function emptyBranch(): BranchState {
  return {
    archive: [],
    tokens: [],
    forms: [],
    pinned: [],
    boundary: 0,
    kept: [],
    summary: undefined,
    limits: undefined,
    pinLog: [],
  }
}

/** A deep copy: what a fork at the newest message inherits. */
export function copyBranch(b: BranchState): BranchState {
  return structuredClone(b)
}

/** The limits used where a branch has none in force (the planner's defaults, no protected ranges). */
export const NO_LIMITS: WindowLimits = { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }

/** The tokens the window counts for each message: its window form's, or its own. */
export function effectiveTokens(b: BranchState): number[] {
  return b.archive.map((_, s) => {
    const form = b.forms[s]
    return form === undefined ? (b.tokens[s] ?? 0) : estimateTokens(form)
  })
}

/** The window forms' tokens, undefined where a message shows itself (what `planWindow` takes). */
function formTokens(b: BranchState): (number | undefined)[] {
  return b.forms.map((f) => (f === undefined ? undefined : estimateTokens(f)))
}

/** The archived seqs in the window, ascending (the summary sits between the kept rows and the tail). */
export function windowSeqs(b: BranchState): number[] {
  const out = b.kept.filter((s) => s < b.boundary)
  for (let s = b.boundary; s < b.archive.length; s++) out.push(s)
  return out
}

/** A message as the window shows it: its window form, with the pin flag. */
function shown(b: BranchState, seq: number): StoredMessageData {
  const m = b.forms[seq] ?? b.archive[seq]
  if (m === undefined) throw new Error(`no message at seq ${seq}`)
  return strandsFormat.show(m, b.pinned[seq] === true)
}

/** What `window()` must return. */
export function windowOf(b: BranchState): StoredMessageData[] {
  const kept = b.kept.filter((s) => s < b.boundary).map((s) => shown(b, s))
  const tail = windowSeqs(b)
    .filter((s) => s >= b.boundary)
    .map((s) => shown(b, s))
  return [
    ...kept,
    ...(b.summary === undefined ? [] : [strandsFormat.show(b.summary.message, false)]),
    ...tail,
  ]
}

/** The sizes `session()` must report. */
export function factsOf(b: BranchState) {
  const eff = effectiveTokens(b)
  const seqs = windowSeqs(b)
  return {
    messageCount: b.archive.length,
    windowMessages: seqs.length + (b.summary === undefined ? 0 : 1),
    windowTokens: seqs.reduce((a, s) => a + (eff[s] ?? 0), 0) + (b.summary?.tokens ?? 0),
    summaryId: b.summary?.id,
    totalTokens: b.tokens.reduce((a, t) => a + t, 0),
    pinnedCount: b.pinned.filter(Boolean).length,
    boundary: b.boundary,
  }
}

/** The view the pure planner reads. */
export function viewOf(b: BranchState): ArrayLedgerView {
  return new ArrayLedgerView(
    b.archive,
    b.tokens,
    b.pinned,
    { boundary: b.boundary, kept: b.kept, summaryTokens: b.summary?.tokens },
    formTokens(b),
  )
}

/** A tool call waiting for its result. */
export interface OpenCall {
  readonly id: string
  readonly name: string
}

/**
 * The calls of the conversation still waiting for their results, in call order: each result answers the
 * latest earlier call with its id still waiting (the store's rule, `linkToolCalls`).
 */
export function openCalls(archive: readonly StoredMessageData[]): OpenCall[] {
  const open: OpenCall[] = []
  for (const m of archive)
    for (const block of m.content) {
      if ('toolResult' in block) {
        const at = open.map((c) => c.id).lastIndexOf(block.toolResult.toolUseId)
        if (at >= 0) open.splice(at, 1)
      } else if ('toolUse' in block) open.push({ id: block.toolUse.toolUseId, name: block.toolUse.name })
    }
  return open
}

/** The name of each call the conversation made, by id. */
function madeCalls(archive: readonly StoredMessageData[]): Map<string, string> {
  const made = new Map<string, string>()
  for (const m of archive)
    for (const block of m.content)
      if ('toolUse' in block) made.set(block.toolUse.toolUseId, block.toolUse.name)
  return made
}

/** One row an append writes: a repair row (its trackingId minted by the store) or the message itself. */
export interface ExpectedRow {
  readonly message: StoredMessageData
  readonly repair: boolean
  readonly form: StoredMessageData | undefined
}

/**
 * The rows appending `batch` writes, or the trackingId of the first message the store must refuse (a
 * result for a call this branch's conversation never made): the whole batch is then refused.
 */
export function appendRows(
  b: BranchState,
  batch: readonly StoredMessageData[],
): ExpectedRow[] | { refused: string } {
  const archive = [...b.archive]
  const made = madeCalls(archive)
  const rows: ExpectedRow[] = []
  for (const m of batch) {
    const cls = classifyMessage(m)
    const waiting = openCalls(archive)
    const missing = waiting.filter((c) => !cls.toolResultIds.includes(c.id))
    if (missing.length > 0) {
      const repair = strandsFormat.repair(missing, INTERRUPTED_TOOL_RESULT_TEXT)
      rows.push({ message: repair, repair: true, form: undefined })
      archive.push(repair)
    }
    const late: { id: string; name: string }[] = []
    for (const id of cls.toolResultIds) {
      if (waiting.some((c) => c.id === id)) continue
      const name = made.get(id)
      if (name === undefined) return { refused: m.trackingId }
      late.push({ id, name })
    }
    rows.push({
      message: m,
      repair: false,
      form: late.length > 0 ? strandsFormat.lateForm(m, late) : undefined,
    })
    archive.push(m)
    for (const id of cls.toolUseIds) made.set(id, 'lookup')
  }
  return rows
}

/**
 * Adds appended rows to the branch: the tail grows. In a new session, or one whose tail was empty, the
 * rows that cannot open a window go straight to the archive, pinned ones and those of the last-N range
 * coming back at once (the store's `skipInvalidStart`).
 */
export function applyAppend(b: BranchState, rows: readonly ExpectedRow[]): void {
  const from = b.boundary
  const emptyTail = from === b.archive.length
  for (const r of rows) {
    b.archive.push(r.message)
    b.tokens.push(estimateTokens(r.message))
    b.forms.push(r.form)
    b.pinned.push(false)
  }
  if (emptyTail) skipInvalidStart(b, from)
}

/** The store's `skipInvalidStart` (src/store/append.ts) over the branch's array. */
function skipInvalidStart(b: BranchState, from: number): void {
  const classes = b.archive.map(classifyMessage)
  const links = linkToolCalls(classes)
  const last = b.limits?.last ?? 0
  const count = b.archive.length
  const kept = new Set(b.kept.filter((s) => s < from))
  const anyKept = kept.size > 0 || b.summary !== undefined
  const skipped: number[] = []
  let start = from
  for (; start < count; start++) {
    const c = classes[start] as MessageClass
    if (c.role === 'user' && c.toolResultIds.length === 0 && (c.plainUser || c.toolUseIds.length > 0)) break
    if (anyKept && c.toolResultIds.length === 0) break
    if (anyKept && links.some(([use, result]) => result === start && kept.has(use))) break
    if (b.pinned[start] === true || start >= count - last) skipped.push(start)
  }
  if (start === from) return
  b.boundary = start
  if (skipped.length === 0) return
  const limits = {
    windowSize: Number.MAX_SAFE_INTEGER,
    tokenBudget: undefined,
    first: b.limits?.first ?? 0,
    last,
  }
  const changes = protectedToRestore(viewOf(b), limits, skipped)
  b.kept = [...new Set([...b.kept, ...changes.keep.map((k) => k.seq)])].sort((x, y) => x - y)
}

/** The plan `applyWindow(limits, mode)` must return; the branch moves to the planned state. */
export function applyWindowModel(
  b: BranchState,
  limits: WindowLimits,
  mode: ReduceMode,
): Omit<WindowResult, never> {
  const planned = planWindow(b.archive, {
    windowSize: limits.windowSize,
    tokenBudget: limits.tokenBudget,
    protectedMessages: { first: limits.first, last: limits.last },
    state: { boundary: b.boundary, kept: b.kept, summaryTokens: b.summary?.tokens },
    mode,
    tokens: b.tokens,
    pinned: b.pinned,
    windowTokens: formTokens(b),
  })
  const { indices: _i, messages: _m, state, kept: _k, ...plan } = planned
  b.boundary = state.boundary
  b.kept = [...state.kept]
  if (plan.summaryEvicted) b.summary = undefined
  b.limits = limits
  return plan
}

/**
 * Pins or unpins `seq` as `store.pin(…, limits)` does: a pin before the first plain user message is
 * refused (returns false); a pin before the boundary brings back what it protects at once.
 */
export function pinModel(b: BranchState, seq: number, pinned: boolean, limits: WindowLimits): boolean {
  if (pinned && seq < firstPlainUser(b.archive)) return false
  if (b.pinned[seq] === pinned) return true
  b.pinned[seq] = pinned
  b.pinLog.push({ seq, action: pinned ? 'pin' : 'unpin' })
  if (pinned && seq < b.boundary) {
    const changes = protectedToRestore(viewOf(b), limits, [seq])
    b.kept = [...new Set([...b.kept, ...changes.keep.map((k) => k.seq)])].sort((x, y) => x - y)
  }
  return true
}

/** The reference's decision for a fold, or undefined when nothing would be folded. */
export function foldModel(
  b: BranchState,
  limits: WindowLimits,
  request: FoldRequest,
): CutDecision | undefined {
  if (b.archive.length === 0) return undefined
  const d = planCut(viewOf(b), limits, 'apply', request)
  return d.plan.cut === 'fold' ? d : undefined
}

/** What the summarizer must be given for a fold: the folded rows and the shown summary, in window order. */
export function foldInput(b: BranchState, folded: readonly number[]): StoredMessageData[] {
  const set = new Set(folded)
  const kept = b.kept.filter((s) => s < b.boundary && set.has(s)).map((s) => shown(b, s))
  const tail = windowSeqs(b)
    .filter((s) => s >= b.boundary && set.has(s))
    .map((s) => shown(b, s))
  return [
    ...kept,
    ...(b.summary === undefined ? [] : [strandsFormat.show(b.summary.message, false)]),
    ...tail,
  ]
}

/** The branch after a fold was written: the planned boundary and kept rows, the new summary shown. */
export function applyFold(b: BranchState, d: CutDecision, made: ShownSummary, limits: WindowLimits): void {
  const released = new Set(d.changes.release)
  b.kept = [
    ...new Set([...b.kept.filter((s) => !released.has(s)), ...d.changes.keep.map((k) => k.seq)]),
  ].sort((x, y) => x - y)
  b.boundary = d.plan.boundary
  b.summary = made
  b.limits = limits
}
