/**
 * The ledger's own bookkeeping, checked against the archive (docs/design.md, "Data model"): what the
 * store derived from each body when it was appended and keeps beside it for the planner's index seeks.
 * None of it is visible through the read API, so a row changed behind the store's back shows here first:
 *
 * - `role` is the body's role; `plain_user`, `has_tool_use`, `has_tool_result`, `trim_point` and
 *   `pair_start` are what the body (and the next one) make them;
 * - `cum_tokens` is the running sum of `tokens`;
 * - `kept` marks rows before the boundary only, and the session's `kept_count` / `kept_tokens` count them;
 * - `pinned` is what the pin log's last event for the message says (no event: not pinned);
 * - every toolUse and every toolResult has its `tool_calls` link, and every link names a message holding
 *   that toolUse (and, once answered, one holding its result) — but a late result, which answers a call
 *   that was no longer waiting;
 * - the session's `limits` and `metadata` are JSON (`limits`: the limits the window was applied with).
 *
 * Each rule reports once, with the seqs involved (the first few), so a column cleared on every row is one
 * line, not thousands.
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import { formatNamed } from '../formats/index.js'
import { parseLimits } from '../store/explain.js'
import { isPlainUser, isTrimPointAt, type MessageShape } from './archive-facts.js'
import { CHECK_READS, type CheckSessionRow } from './statements.js'
import { checkLogRows } from './log-rows.js'
import type { BodyFacts } from './message-rules.js'
import { Offenders, type Fail } from './problems.js'
import { checkToolLinks } from './tool-links.js'

function isShapeToolPairStart(m: MessageShape, next: MessageShape | undefined): boolean {
  return (
    m.role === 'assistant' &&
    m.uses.length > 0 &&
    next !== undefined &&
    next.role === 'user' &&
    next.results.length > 0
  )
}

/**
 * For a format whose steps come as several messages (`splitSteps`): by seq, whether a call made before the
 * message was still waiting when it came (a pair may not start there).
 */
function waitingBefore(shapes: readonly MessageShape[]): boolean[] {
  const open = new Set<string>()
  return shapes.map((m) => {
    const blocked = open.size > 0
    for (const id of m.results) open.delete(id)
    for (const id of m.uses) open.add(id)
    return blocked
  })
}

/**
 * `pair_start` as the store derives it for the session's format (see `pairAt` in append-rows.ts).
 *
 * @param session - the session's row (its format)
 * @param shapes - each message's role and tool ids, by seq
 * @returns whether the row at a seq starts a tool pair
 */
export function pairStartsOf(
  session: CheckSessionRow,
  shapes: readonly MessageShape[],
): (seq: number) => boolean {
  const alone = formatNamed(session.format).splitSteps === true
  const blocked = alone ? waitingBefore(shapes) : []
  return (seq) => {
    const m = shapes[seq]
    const next = shapes[seq + 1]
    if (m === undefined || !isShapeToolPairStart(m, next)) return false
    return !alone || (blocked[seq] !== true && m.uses.every((id) => next?.results.includes(id) === true))
  }
}

/** What a branch adds to its own rows' bookkeeping (`branch-state.ts`). */
export interface BranchLedger {
  /** Its first own seq: the fork point + 1. */
  readonly firstSeq: number
  /** The token sum its own rows' running sums start from. */
  readonly forkTokens: number
  /** Its kept inherited rows, and their window tokens (its kept totals count them too). */
  readonly kept: number
  readonly keptTokens: number
  /** Inherited seqs a pin in its view stands behind. */
  readonly pinnedOnce: ReadonlySet<number>
}

/**
 * Checks a session's bookkeeping columns against its archive.
 *
 * @param db - the connection the archive was read on, inside the same read transaction
 * @param session - the session's row
 * @param shapes - each message's role and tool ids, by seq, as the archive's bodies give them
 * @param facts - the calls' names, the results' statuses and the pin flags, from the bodies
 * @param fail - records a problem
 * @param branch - for a branch: where its own rows start and what its inherited rows add
 */
export function checkLedgerRows(
  db: Database.Database,
  session: CheckSessionRow,
  shapes: readonly MessageShape[],
  facts: BodyFacts,
  fail: Fail,
  branch?: BranchLedger,
): void {
  const pk = session.pk
  for (const uid of prepareSpec(db, CHECK_READS.duplicateUids).iterate(pk))
    fail('archive unique', `trackingId ${uid} names more than one message`)

  const roles = new Offenders('role column', 'the role column disagrees with the body')
  const sums = new Offenders('token sums', 'cum_tokens is not the running sum of tokens')
  const flags = new Offenders('derived flags', 'a flag the store derives from the bodies disagrees')
  const keptAfter = new Offenders('kept before the boundary', 'a row at or after the boundary is marked kept')
  const pins = new Offenders('pin log', 'the pinned column disagrees with the pin log')
  const lastPins = prepareSpec(db, CHECK_READS.lastPins).iterate(pk)
  let pin = lastPins.next()
  const late = new Set<number>()
  let sum = branch?.forkTokens ?? 0
  let kept = branch?.kept ?? 0
  let keptTokens = branch?.keptTokens ?? 0
  const pairStart = pairStartsOf(session, shapes)
  for (const r of prepareSpec(db, CHECK_READS.messages).iterate(pk)) {
    const m = shapes[r.seq]
    if (m === undefined) continue
    if (r.role !== m.role) roles.add(r.seq, `seq ${r.seq} is ${r.role} in its row, ${m.role} in its body`)
    sum += r.tokens
    if (r.cum_tokens !== sum)
      sums.add(r.seq, `seq ${r.seq} has cum_tokens ${r.cum_tokens}, the running sum is ${sum}`)
    const derived: [string, number, boolean][] = [
      ['plain_user', r.plain_user, isPlainUser(m)],
      ['has_tool_use', r.has_tool_use, m.uses.length > 0],
      ['has_tool_result', r.has_tool_result, m.results.length > 0],
      ['trim_point', r.trim_point, isTrimPointAt(shapes, r.seq)],
      ['pair_start', r.pair_start, pairStart(r.seq)],
    ]
    for (const [column, stored, is] of derived)
      if ((stored === 1) !== is)
        flags.add(r.seq, `seq ${r.seq} has ${column} ${stored}, its body makes it ${is ? 1 : 0}`)
    if (r.kept === 1) {
      kept++
      keptTokens += r.window_tokens ?? r.tokens
      if (r.seq >= session.boundary) keptAfter.add(r.seq, `seq ${r.seq} (boundary ${session.boundary})`)
    }
    while (!pin.done && pin.value.seq < r.seq) pin = lastPins.next()
    const logged = !pin.done && pin.value.seq === r.seq && pin.value.action === 'pin'
    if ((r.pinned === 1) !== logged)
      pins.add(
        r.seq,
        r.pinned === 1
          ? `seq ${r.seq} is pinned, its pin log ${!pin.done && pin.value.seq === r.seq ? 'ends with an unpin' : 'is empty'}`
          : `seq ${r.seq} is not pinned, its pin log ends with a pin`,
      )
    if (r.late === 1) late.add(r.seq)
  }
  if (!pin.done) lastPins.return?.()
  for (const o of [roles, sums, flags, keptAfter, pins]) o.report(fail)
  if (session.kept_count !== null && session.kept_count !== kept)
    fail('kept totals', `the session counts ${session.kept_count} kept rows, there are ${kept}`)
  if (session.kept_tokens !== null && session.kept_tokens !== keptTokens)
    fail('kept totals', `the session counts ${session.kept_tokens} kept tokens, there are ${keptTokens}`)

  const redacted = checkLogRows(db, pk, facts, fail, branch?.pinnedOnce)
  checkToolLinks(db, pk, shapes, facts, { late, redacted, firstSeq: branch?.firstSeq ?? 0 }, fail)

  if (session.limits !== null) {
    const what = jsonProblem(session.limits)
    if (what !== undefined) fail('session limits', `sessions.limits is not JSON (${what})`)
    else if (parseLimits(session.limits) === undefined)
      fail('session limits', `sessions.limits is not limits: ${session.limits.slice(0, 80)}`)
  }
  if (session.metadata !== null) {
    const what = jsonProblem(session.metadata)
    if (what !== undefined) fail('session metadata', `sessions.metadata is not JSON (${what})`)
  }
}

/** Why a text is not JSON, or undefined when it is. */
function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
