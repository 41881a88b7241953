/**
 * The `tool_calls` links against the archive (docs/design.md, "Data model"), as `append` writes them:
 *
 * - every toolUse has one link from the message that makes the call, under the call's tool name, and
 *   every link names a message holding that toolUse — one row per call, never two;
 * - a link's result names a later message answering that call, with the result's status (no result, no
 *   status); every toolResult has its link — but a late result, which answers a call that was no longer
 *   waiting (`src/store/late-tool-results.ts`);
 * - a message is marked `late` exactly when it holds such a late result.
 *
 * A redacted body may name its calls' tools and statuses otherwise (a redaction's replacement keeps the
 * ids only), so those two are not compared for a message the edit log records a redaction of.
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import type { MessageShape } from './archive-facts.js'
import { toolKey, type BodyFacts } from './message-rules.js'
import { Offenders, type Fail } from './problems.js'
import { CHECK_READS } from './statements.js'

/**
 * Checks the session's tool-call links and late flags.
 *
 * @param db - the connection, inside the check's read transaction
 * @param pk - the session's key
 * @param shapes - each message's role and tool ids, by seq
 * @param facts - the calls' names and the results' statuses, from the bodies
 * @param marks - the seqs marked late, those the edit log records a redaction of, and the session's first
 *   own seq (a branch's fork point + 1: the calls and results before it are its ancestors' rows, linked in
 *   their own tables; it holds only the links of calls still open at its fork)
 * @param fail - records a problem
 */
export function checkToolLinks(
  db: Database.Database,
  pk: number,
  shapes: readonly MessageShape[],
  facts: BodyFacts,
  marks: { late: ReadonlySet<number>; redacted: ReadonlySet<number>; firstSeq: number },
  fail: Fail,
): void {
  const { late, redacted, firstSeq } = marks
  const links = new Offenders('tool links', 'a tool_calls row disagrees with the messages')
  const uses = new Set<string>()
  const results = new Set<string>()
  const calledAt = new Map<string, number>()
  for (const t of prepareSpec(db, CHECK_READS.toolCalls).iterate(pk)) {
    const id = t.tool_use_id
    const row = { table: 'toolCall', id: t.id } as const
    const use = toolKey(t.use_seq, id)
    if (shapes[t.use_seq]?.uses.includes(id) !== true)
      links.add(t.use_seq, `tool call ${id} names seq ${t.use_seq}, which makes no call ${id}`)
    else if (uses.has(use))
      links.add({ row, field: 'toolUseId' }, `tool call ${id} of seq ${t.use_seq} is recorded twice`)
    else {
      const name = facts.toolNames.get(use)
      if (name !== undefined && name !== t.name && !redacted.has(t.use_seq))
        links.add(
          { row, field: 'name' },
          `tool call ${id} is named ${t.name}, seq ${t.use_seq} calls ${name}`,
        )
    }
    uses.add(use)
    const first = calledAt.get(id)
    if (first === undefined || t.use_seq < first) calledAt.set(id, t.use_seq)
    if (t.result_seq === null) {
      if (t.status !== null)
        links.add({ row, field: 'status' }, `tool call ${id} has status ${t.status} and no result`)
      continue
    }
    const answer = toolKey(t.result_seq, id)
    if (t.result_seq <= t.use_seq || shapes[t.result_seq]?.results.includes(id) !== true)
      links.add(
        t.result_seq,
        `tool call ${id} names seq ${t.result_seq} as its result, which answers no call ${id}`,
      )
    else {
      const status = facts.resultStatus.get(answer)
      if (status !== undefined && status !== t.status && !redacted.has(t.result_seq))
        links.add(
          { row, field: 'status' },
          `tool call ${id} has status ${String(t.status)}, seq ${t.result_seq} answers it with ${status}`,
        )
    }
    results.add(answer)
  }
  const lateFlags = new Offenders('late flag', 'a message marked late holds no late tool result')
  // Where each call was first made in the conversation (a late result answers a call made before it,
  // which may be an ancestor's).
  const firstUse = new Map<string, number>()
  shapes.forEach((m, seq) => {
    for (const id of m.uses) if (!firstUse.has(id)) firstUse.set(id, seq)
  })
  shapes.forEach((m, seq) => {
    if (seq < firstSeq) return
    for (const id of m.uses)
      if (!uses.has(toolKey(seq, id)))
        links.add(seq, `seq ${seq} calls ${id}, and no tool_calls row records it`)
    let lateResults = 0
    for (const id of m.results) {
      if (results.has(toolKey(seq, id))) continue
      // A late result answers a call that was no longer waiting: no link, but the call was made before —
      // or, in a format that stores a result for a call never made as late (a transcript mirror), not.
      const made = calledAt.get(id) ?? firstUse.get(id)
      const known = made !== undefined && made < seq
      if (late.has(seq) && (known || facts.format.unknownResults === 'late')) lateResults++
      else links.add(seq, `seq ${seq} answers ${id}, and no tool_calls row links it`)
    }
    if (late.has(seq) && lateResults === 0)
      lateFlags.add({ seq, field: 'late' }, `seq ${seq} is marked late, and holds no late tool result`)
  })
  links.report(fail)
  lateFlags.report(fail)
}
