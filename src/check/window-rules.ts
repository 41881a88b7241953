/**
 * The window rules that hold at every moment (docs/design.md, "Window rules" and "Summaries"), checked
 * from a session's archive independently of the store's planner: it links tool calls and finds the
 * protected messages itself (`archive-facts.ts`), then compares with the window, the session and the
 * summaries the store returns. Every problem found is returned, naming the rule and the seqs involved;
 * nothing throws. `context-ledger check` lists them all; the property tests' oracle
 * (`test/helpers/window-rules.ts`) throws the first.
 *
 * The archive is fed one message at a time ({@link WindowRules.entry}), so a big session is checked
 * holding only each message's role and tool ids, never its body:
 * - the archive is dense (seq 0..n-1), each body carries its row's trackingId, and every message the
 *   caller recorded as appended is there byte-identical;
 * - each entry's `inWindow` agrees with the window, and a pinned message in it carries the pin flag.
 *
 * Then ({@link WindowRules.finish}):
 * - the window is in seq order: kept messages before the boundary, the session's current summary (if it
 *   shows one), then every message from the boundary; the session's counts agree;
 * - it starts with a user message that carries no toolResult; every toolResult has its toolUse earlier in
 *   it; every toolUse its result later (but a call in flight, the session's newest message); the summary
 *   never splits a tool pair; the alternating form alternates roles and keeps every block;
 * - every protected message (pinned, first N, last N, their tool partners) is in it, and every pinned one;
 * - the newest turn's opening message is in it — or folded into the chain of the summary it shows;
 * - summaries: exactly the current one is open; each summary's ranges are ascending, half-open, within
 *   the archive and before its boundary, and count its messages; `replaces` and `regenerates` name an
 *   earlier summary of the session (so there is no cycle); the current one is a user message of text
 *   with the ledger's marker, shown as recorded; its chain folds each message at most once (but a kept
 *   row that protection brought back and that lost it again), never the window's tail, never the call in
 *   flight;
 * - the boundary never moves backward (given the boundary seen before).
 */
import type { StoredMessageData } from '../messages/types.js'
import type { SummaryRecord } from '../store/summaries.js'
import { isSummaryMessage } from '../summaries/summary-message.js'
import { checkProtectedShown } from './protected-shown.js'
import { linkCalls, newestTurnStart, protectedSet, shapeOf, type MessageShape } from './archive-facts.js'
import { problemList, type Fail, type WindowRuleProblem } from './problems.js'

export {
  describeProblem,
  problemList,
  type Fail,
  type ProblemPlace,
  type WindowRuleProblem,
} from './problems.js'

/** What the store says about the session (`session()`). */
export interface SessionFacts {
  /** Messages in the archive, by the session's count. */
  readonly messageCount: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** The window's size, by the session's count (its summary included). */
  readonly windowMessages: number
  /** The summary the window shows, if any. */
  readonly summaryId: number | undefined
}

/** The session as the store shows it, read in one snapshot with the archive. */
export interface SessionView {
  /** The session's own facts, or undefined when the store has no session row. */
  readonly session: SessionFacts | undefined
  /** `window()`. */
  readonly window: readonly StoredMessageData[]
  /** `window({ alternate: true })`; undefined for a session of another format, which has no such form. */
  readonly alternate: readonly StoredMessageData[] | undefined
  /** `summaries()`, newest first; undefined when they could not be read (reported elsewhere). */
  readonly summaries: readonly SummaryRecord[] | undefined
}

/** The options of a check. */
export interface WindowRuleOptions {
  /** The protected ranges in force. */
  readonly ranges?: { readonly first?: number | undefined; readonly last?: number | undefined } | undefined
  /** The boundary an earlier check saw: the boundary may not be smaller now. */
  readonly previousBoundary?: number | undefined
  /**
   * Whether to check that the newest turn's opening message is in the window (default true). Off only
   * for files written by versions that could evict it.
   */
  readonly newestTurn?: boolean | undefined
  /**
   * Whether every message between the current summary's `fromBoundary` and `toBoundary` must be folded
   * into it or be in the window (default false): true for writers that never release kept rows (no unpin,
   * no narrower protected range), where a fold is the only way such a message leaves the window.
   */
  readonly foldCoverage?: boolean | undefined
  /**
   * What the caller appended and had acknowledged: trackingId → `JSON.stringify` of the message with its
   * trackingId. Each must be in the archive, byte-identical.
   */
  readonly appended?: ReadonlyMap<string, string> | Iterable<readonly [string, string]> | undefined
}

/** One archived message as the rules read it (a `LedgerEntry` is one). */
export interface ArchiveEntry {
  /** Its seq as stored. */
  readonly seq: number
  /** Its row's trackingId. */
  readonly trackingId: string
  /** Its body as archived. */
  readonly message: StoredMessageData
  /** Its pinned flag. */
  readonly pinned: boolean
  /** Whether the store says it is in the window. */
  readonly inWindow: boolean
}

/** What the check found and saw. */
export interface WindowRulesResult {
  /** Every broken rule (empty when all hold). */
  readonly problems: WindowRuleProblem[]
  /** First seq of the window's tail. */
  readonly boundary: number
  /** Messages in the archive. */
  readonly messageCount: number
  /** Seqs of the window's archived messages, ascending (the summary is not one). */
  readonly windowSeqs: readonly number[]
  /** Seqs of protected messages, ascending. */
  readonly protectedSeqs: readonly number[]
  /** The summary the window shows, if any. */
  readonly summary: SummaryRecord | undefined
  /** The seqs the current summary stands for, down its chain (ascending; empty without a summary). */
  readonly chainSeqs: readonly number[]
  /** The session's summaries, newest first. */
  readonly summaries: readonly SummaryRecord[]
  /** Each archived message's role and tool ids, by seq. */
  readonly shapes: readonly MessageShape[]
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The check of one session: feed it the archive in seq order with {@link entry}, then {@link finish}.
 */
export class WindowRules {
  private readonly problems: WindowRuleProblem[]
  private readonly fail: Fail
  private readonly shapes: MessageShape[] = []
  private readonly pinned = new Set<number>()
  /** Window position → trackingId, for the window's archived messages (the summary left out). */
  private readonly windowAt = new Map<string, number[]>()
  /** Window position → seq, filled as the archive streams by. */
  private readonly seqAt = new Map<number, number>()
  private readonly appended: Map<string, string> | undefined
  private readonly summaryAt: number
  private readonly current: SummaryRecord | undefined

  /**
   * @param sessionId - the session
   * @param view - the session, its window and its summaries, read in the snapshot the archive is read in
   * @param options - ranges, the boundary seen before, acknowledged appends …
   */
  constructor(
    sessionId: string,
    private readonly view: SessionView,
    private readonly options: WindowRuleOptions = {},
  ) {
    ;({ problems: this.problems, fail: this.fail } = problemList(sessionId))
    this.appended = options.appended === undefined ? undefined : new Map(options.appended)
    this.current =
      view.session === undefined || view.summaries === undefined
        ? undefined
        : checkSummaryRecords(this.fail, sessionId, view.session.summaryId, view.summaries)
    const current = this.current
    this.summaryAt =
      current === undefined ? -1 : view.window.findIndex((m) => m.trackingId === current.trackingId)
    view.window.forEach((m, i) => {
      if (i === this.summaryAt) return
      const at = this.windowAt.get(m.trackingId)
      if (at === undefined) this.windowAt.set(m.trackingId, [i])
      else at.push(i)
    })
  }

  /**
   * One archived message, in seq order.
   *
   * @param e - the message
   */
  entry(e: ArchiveEntry): void {
    const n = this.shapes.length
    const fail = this.fail
    if (e.seq !== n) fail('archive dense', `entry ${n} has seq ${e.seq}`, { seq: n })
    if (e.message.trackingId !== e.trackingId)
      fail(
        'archive identity',
        `seq ${e.seq}: its row's trackingId is ${e.trackingId}, its body's is ${e.message.trackingId} (they must be the same)`,
        {
          seq: e.seq,
        },
      )
    this.shapes.push(shapeOf(e.message))
    if (e.pinned) this.pinned.add(n)
    const wanted = this.appended?.get(e.trackingId)
    if (wanted !== undefined) {
      const stored = JSON.stringify(e.message)
      if (stored !== wanted)
        fail('archive byte-identical', `seq ${n} (${e.trackingId}) is ${stored}, appended ${wanted}`, {
          seq: n,
        })
      this.appended?.delete(e.trackingId)
    }
    if (this.current !== undefined && e.trackingId === this.current.trackingId)
      fail('summary not archived', `summary ${this.current.id} shares a trackingId with seq ${n}`, {
        summaryId: this.current.id,
      })
    const at = this.windowAt.get(e.trackingId)
    if (e.inWindow !== (at !== undefined))
      fail('entry inWindow', `seq ${n} says inWindow ${e.inWindow}`, { seq: n })
    for (const i of at ?? []) {
      this.seqAt.set(i, n)
      if (e.pinned && this.view.window[i]?.metadata?.custom?.pinned !== true)
        fail('pin flag', `pinned seq ${n} lacks the pin flag`, { seq: n })
    }
  }

  /**
   * Checks what needs the whole archive.
   *
   * @returns the problems found (none when every rule holds), and what was seen
   */
  finish(): WindowRulesResult {
    const { view, options, fail, shapes } = this
    const n = shapes.length
    for (const trackingId of this.appended?.keys() ?? [])
      fail('archive complete', `acknowledged ${trackingId} is missing`)
    const summaries = view.summaries ?? []
    const session = view.session
    const seen = {
      problems: this.problems,
      messageCount: n,
      summary: undefined,
      chainSeqs: [],
      summaries,
      shapes,
    }
    if (session === undefined) {
      if (n > 0 || view.window.length > 0 || summaries.length > 0)
        fail('session exists', 'messages or summaries without a session row')
      return { ...seen, boundary: 0, windowSeqs: [], protectedSeqs: [] }
    }
    if (session.messageCount !== n)
      fail('message count', `session says ${session.messageCount}, archive has ${n}`)
    const boundary = session.boundary
    if (boundary < 0 || boundary > n) fail('boundary in range', `boundary ${boundary} of ${n}`)
    if (options.previousBoundary !== undefined && boundary < options.previousBoundary)
      fail('boundary monotonic', `boundary moved back from ${options.previousBoundary} to ${boundary}`)

    // The summary the window shows.
    const window = view.window
    const current = this.current
    const summaryAt = this.summaryAt
    if (current !== undefined) {
      const shown = window[summaryAt]
      if (shown === undefined)
        fail('summary in window', `summary ${current.id} is not in window()`, { summaryId: current.id })
      else {
        if (!sameJson(shown, current.message))
          fail('summary shown as recorded', `window shows ${JSON.stringify(shown)}`, {
            summaryId: current.id,
          })
        if (
          shown.role !== 'user' ||
          !isSummaryMessage(shown) ||
          shown.content.length === 0 ||
          shown.content.some((b) => !('text' in b))
        )
          fail('summary message', `summary ${current.id} is ${JSON.stringify(shown)}`, {
            summaryId: current.id,
          })
      }
    }
    for (const r of summaries) checkSummaryRanges(fail, r, n)

    // Shape: kept rows before the boundary, then the summary, then the whole tail, in seq order.
    const windowSeqs: number[] = []
    const seqOfIndex = (i: number): number | string =>
      i === summaryAt ? `summary ${current?.id}` : (this.seqAt.get(i) ?? `window[${i}]`)
    window.forEach((m, i) => {
      if (i === summaryAt) return
      const seq = this.seqAt.get(i)
      if (seq === undefined) fail('window from archive', `window[${i}] ${m.trackingId} is not archived`)
      else windowSeqs.push(seq)
    })
    for (let i = 1; i < windowSeqs.length; i++)
      if ((windowSeqs[i] as number) <= (windowSeqs[i - 1] as number)) {
        fail('window order', `window seqs ${windowSeqs.join(',')}`)
        break
      }
    const tail = windowSeqs.filter((s) => s >= boundary)
    if (tail.length !== n - boundary || (tail.length > 0 && tail[0] !== boundary))
      fail('window tail', `boundary ${boundary}, ${n} messages, window tail ${tail.join(',')}`)
    if (session.windowMessages !== window.length)
      fail('window size', `session() says ${session.windowMessages}, window() has ${window.length}`)
    if (current !== undefined && summaryAt >= 0) {
      const kept = windowSeqs.filter((s) => s < boundary).length
      if (summaryAt !== kept)
        fail(
          'summary between kept rows and tail',
          `summary at window[${summaryAt}], ${kept} kept rows (window seqs ${windowSeqs.join(',')}, boundary ${boundary})`,
          { summaryId: current.id },
        )
    }

    // Valid for providers. With a summary shown, the window opens with it or a kept row; the tail may
    // then open with any message a summary can be followed by — the checks below (no toolResult without
    // its toolUse before it, no toolUse without its result after it) say exactly that.
    const windowShapes = window.map(shapeOf)
    const first = windowShapes[0]
    if (first !== undefined && (first.role !== 'user' || first.results.length > 0))
      fail('window start', `window starts with seq ${seqOfIndex(0)}: ${JSON.stringify(window[0])}`)
    const inWindow = linkCalls(windowShapes)
    const linkedResults = new Map<number, number>()
    for (const [, r] of inWindow.links) linkedResults.set(r, (linkedResults.get(r) ?? 0) + 1)
    windowShapes.forEach((m, i) => {
      if (m.results.length > (linkedResults.get(i) ?? 0))
        fail('toolResult after its toolUse', `seq ${seqOfIndex(i)} answers a call not in the window`, {
          seq: this.seqAt.get(i),
        })
    })
    // A call in flight: the session's newest message, or followed to the end of the session only by
    // messages that carry its answers on (an AI SDK tool run: other results, approval responses) or that
    // answer other calls of its step and nothing else (a branch forked or rewound inside a step's
    // answers waits for the rest of them: its next append answers or repairs the call; design.md).
    const inFlight = (i: number): boolean =>
      windowShapes[i]?.role === 'assistant' &&
      windowSeqs.at(-1) === n - 1 &&
      windowShapes.slice(i + 1).every((s) => s.carries === true || answersOf(s, windowShapes[i]))
    for (const i of inWindow.open) {
      const seq = seqOfIndex(i)
      if (!inFlight(i))
        fail('toolUse answered', `seq ${seq} has a toolUse with no result after it in the window`, {
          seq: this.seqAt.get(i),
        })
    }
    // A toolUse and its result are never split by the summary (a provider that does not merge same-role
    // messages would refuse the result after a user message).
    if (summaryAt >= 0)
      for (const [u, r] of inWindow.links)
        if (u < summaryAt && r > summaryAt)
          fail('summary splits a tool pair', `seq ${seqOfIndex(u)} and seq ${seqOfIndex(r)}`, {
            seq: this.seqAt.get(u),
          })

    if (view.alternate !== undefined)
      checkAlternating(fail, window, view.alternate, windowSeqs.at(-1) === n - 1)

    // Protection, derived from the archive alone.
    const prot = protectedSet(shapes, this.pinned, options.ranges ?? {})
    const chainSeqs = current === undefined ? [] : checkChain(fail, current, summaries, n, boundary)
    const chainSet = new Set(chainSeqs)
    const windowSet = new Set(windowSeqs)
    // The newest turn stays: its opening message is the latest one that can open a window — or a fold took
    // it into the summary the window shows (a fold by ratio may, as Strands' summarizer does; so may a fold
    // by the excess when what must stay already fills the limits).
    if (options.newestTurn !== false) {
      const newest = newestTurnStart(shapes)
      if (newest !== undefined && !windowSet.has(newest) && !chainSet.has(newest))
        fail('newest turn in window', `seq ${newest} opens the newest turn but is not in the window`, {
          seq: newest,
        })
    }
    const protectedSeqs = [...prot].sort((a, b) => a - b)
    checkProtectedShown(fail, shapes, protectedSeqs, this.pinned, windowSet)

    if (current !== undefined) {
      // A folded message is out of the window: never in the tail (only dropping the summary moves the
      // boundary back), and before it only as a kept row that protection brought back since (a pin, a
      // wider protected range, a lead), which the summary cannot undo.
      const back = windowSeqs.filter((s) => chainSet.has(s) && s >= boundary)
      if (back.length > 0)
        fail(
          'folded out of the window',
          `seqs ${back.join(',')} are in the window's tail and in summary ${current.id}`,
          { seq: back[0], summaryId: current.id },
        )
      // A call in flight never folds.
      const last = shapes[n - 1]
      if (last !== undefined && last.role === 'assistant' && last.uses.length > 0 && chainSet.has(n - 1))
        fail('call in flight never folds', `seq ${n - 1} is folded into summary ${current.id}`, {
          seq: n - 1,
          summaryId: current.id,
        })
      if (options.foldCoverage === true)
        for (let s = current.fromBoundary; s < current.toBoundary; s++)
          if (!chainSet.has(s) && !windowSet.has(s))
            fail('fold coverage', `seq ${s} left the window at summary ${current.id} but is not in it`, {
              seq: s,
            })
    }
    return { ...seen, boundary, windowSeqs, protectedSeqs, summary: current, chainSeqs }
  }
}

/**
 * Whether a message only answers calls of a step: a user message of toolResults, each for a call the step
 * made (a repair row, or the results of some of its parallel calls).
 *
 * @param m - the message
 * @param step - the assistant message whose calls it answers
 * @returns whether it does
 */
function answersOf(m: MessageShape, step: MessageShape | undefined): boolean {
  return (
    step !== undefined &&
    m.role === 'user' &&
    m.uses.length === 0 &&
    m.results.length > 0 &&
    m.results.every((id) => step.uses.includes(id))
  )
}

/**
 * The provider-strict form `window({ alternate: true })`: roles alternate, it starts with a user message
 * without toolResult, every toolResult answers a toolUse of the message right before it, every toolUse is
 * answered by the message right after it (but a call in flight in the newest message), and it holds
 * exactly the window's blocks.
 */
function checkAlternating(
  fail: Fail,
  window: readonly StoredMessageData[],
  alternate: readonly StoredMessageData[],
  endsWithNewest: boolean,
): void {
  const blocks = (ms: readonly StoredMessageData[]): string[] =>
    ms.flatMap((m) => m.content.map((b) => JSON.stringify(b))).sort()
  if (JSON.stringify(blocks(window)) !== JSON.stringify(blocks(alternate)))
    fail('alternate keeps every block', `${window.length} messages became ${alternate.length}`)
  const shapes = alternate.map(shapeOf)
  shapes.forEach((m, i) => {
    const prev = shapes[i - 1]
    if (prev !== undefined && prev.role === m.role)
      fail('alternate roles', `messages ${i - 1} and ${i} are both ${m.role}`)
    const uses = new Set(prev === undefined ? [] : prev.uses)
    for (const id of m.results)
      if (!uses.has(id)) fail('alternate toolResult follows its toolUse', `message ${i} answers ${id}`)
    const next = shapes[i + 1]
    const answered = new Set(next === undefined ? [] : next.results)
    // In flight: the newest message, or the one before the newest when that only answers its calls.
    const inFlight =
      endsWithNewest &&
      m.role === 'assistant' &&
      (next === undefined || (i + 2 === shapes.length && answersOf(next, m)))
    for (const id of m.uses)
      if (!answered.has(id) && !inFlight) fail('alternate toolUse answered next', `message ${i} calls ${id}`)
  })
  const first = shapes[0]
  if (first !== undefined && (first.role !== 'user' || first.results.length > 0))
    fail('alternate start', JSON.stringify(alternate[0]))
}

/**
 * The summary records agree with the session: ids newest first, exactly the current one open (no
 * `endReason`, no `endedAt`), ended ones with both, `replaces` and `regenerates` naming an earlier
 * summary of the session; returns the current one.
 */
function checkSummaryRecords(
  fail: Fail,
  sessionId: string,
  summaryId: number | undefined,
  summaries: readonly SummaryRecord[],
): SummaryRecord | undefined {
  for (let i = 1; i < summaries.length; i++)
    if ((summaries[i] as SummaryRecord).id >= (summaries[i - 1] as SummaryRecord).id)
      fail('summaries newest first', summaries.map((x) => x.id).join(','))
  const byId = new Map(summaries.map((r) => [r.id, r]))
  let current: SummaryRecord | undefined
  for (const r of summaries) {
    const place = { summaryId: r.id }
    if (r.sessionId !== sessionId) fail('summary session', `summary ${r.id} says ${r.sessionId}`, place)
    if (r.current !== (r.id === summaryId))
      fail('summary current', `summary ${r.id} says current ${r.current}, session shows ${summaryId}`, place)
    if (r.current) current = r
    const open = r.endReason === undefined
    if (open !== (r.endedAt === undefined))
      fail('summary ended', `summary ${r.id}: endReason ${r.endReason}, endedAt ${String(r.endedAt)}`, place)
    if (open !== r.current)
      fail(
        'only the current summary is open',
        r.current
          ? `summary ${r.id} is the one the window shows, but it ended (${r.endReason ?? 'endedAt set'})`
          : `summary ${r.id} is not the one the window shows, but it has not ended`,
        place,
      )
    if (r.message.trackingId !== r.trackingId)
      fail('summary identity', `summary ${r.id} message ${r.message.trackingId}`, place)
    for (const [field, ref] of [
      ['replaces', r.replaces],
      ['regenerates', r.regenerates],
    ] as const) {
      if (ref === undefined) continue
      if (ref >= r.id || !byId.has(ref))
        fail(
          `summary ${field}`,
          `summary ${r.id} ${field} ${ref}, which is not an earlier summary of the session`,
          place,
        )
    }
    if (r.regenerates !== undefined) {
      const old = byId.get(r.regenerates)
      if (
        old !== undefined &&
        (old.endReason !== 'regenerated' || !sameJson(old.seqs, r.seqs) || old.replaces !== r.replaces)
      )
        fail(
          'regeneration',
          `summary ${r.id} regenerates ${old.id} (${old.endReason ?? 'not ended'}) with other messages`,
          place,
        )
    }
  }
  if (summaryId !== undefined && current === undefined)
    fail('current summary recorded', `the session shows summary ${summaryId}, summaries() lacks it`, {
      summaryId,
    })
  return current
}

/**
 * One summary's own ranges: half-open, ascending, within the archive and before the boundary it left,
 * `messageCount` counting them, and its boundaries in order.
 */
function checkSummaryRanges(fail: Fail, r: SummaryRecord, n: number): void {
  const place = { summaryId: r.id }
  if (r.fromBoundary > r.toBoundary || r.toBoundary > n)
    fail('summary boundaries', `summary ${r.id}: ${r.fromBoundary} → ${r.toBoundary} (${n} messages)`, place)
  let count = 0
  let last = -1
  for (const range of r.seqs as readonly unknown[]) {
    const [lo, hi] = Array.isArray(range) ? (range as unknown[]) : []
    if (!(
      typeof lo === 'number' &&
      typeof hi === 'number' &&
      Number.isInteger(lo) &&
      Number.isInteger(hi) &&
      lo > last &&
      lo < hi &&
      hi <= r.toBoundary &&
      hi <= n
    )) {
      fail(
        'summary seqs',
        `summary ${r.id} has ${JSON.stringify(r.seqs)}: not ascending half-open ranges before its boundary ${r.toBoundary} within ${n} messages`,
        place,
      )
      return
    }
    last = hi
    count += hi - lo
  }
  if (count !== r.messageCount)
    fail('summary messageCount', `summary ${r.id} says ${r.messageCount}, seqs hold ${count}`, place)
}

/**
 * The chain of the current summary: its seqs and those of every summary it replaced, down to the raw
 * messages. No message is folded twice (but a kept row brought back between two folds), and a replaced
 * summary ended as `'replaced'` and lies before the one that replaced it. Ranges that are not well formed
 * (reported by {@link checkSummaryRanges}) are skipped.
 */
function checkChain(
  fail: Fail,
  current: SummaryRecord,
  summaries: readonly SummaryRecord[],
  n: number,
  boundary: number,
): number[] {
  const byId = new Map(summaries.map((r) => [r.id, r]))
  const seen = new Map<number, SummaryRecord>()
  if (current.toBoundary > boundary)
    fail('summary boundary', `summary ${current.id} ends at ${current.toBoundary}, boundary ${boundary}`, {
      summaryId: current.id,
    })
  for (let link = current, hops = 0; ; hops++) {
    if (hops > summaries.length) {
      fail('summary chain acyclic', `at summary ${link.id}`, { summaryId: link.id })
      break
    }
    for (const range of link.seqs) {
      const [lo, hi] = range
      if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi > n) continue
      for (let s = lo; s < hi; s++) {
        // A message folds twice in one chain only when protection brought it back between the folds and
        // the later one took it as a kept row that lost its protection (before that fold's boundary).
        const newer = seen.get(s)
        if (newer !== undefined && s >= newer.fromBoundary)
          fail('folded once per chain', `seq ${s} is in summary ${link.id} and summary ${newer.id}`, {
            seq: s,
            summaryId: link.id,
          })
        seen.set(s, newer ?? link)
      }
    }
    if (link.replaces === undefined) break
    const older = byId.get(link.replaces)
    if (older === undefined) {
      fail('summary chain complete', `summary ${link.id} replaces ${link.replaces}, not recorded`, {
        summaryId: link.id,
      })
      break
    }
    if (older.id >= link.id || older.endReason !== 'replaced' || older.toBoundary > link.fromBoundary) {
      fail(
        'summary chain order',
        `summary ${link.id} (from ${link.fromBoundary}) replaces ${older.id} (${older.endReason ?? 'not ended'}, to ${older.toBoundary})`,
        { summaryId: link.id },
      )
      if (older.id >= link.id) break
    }
    link = older
  }
  return [...seen.keys()].sort((a, b) => a - b)
}
