/**
 * The eviction log's rows of a session, checked (docs/design.md, "Recall"): each row is a run of seqs
 * the session has (`from_seq <= to_seq < messageCount`), of a known cut and reason, no newer than the
 * session (`version`), naming a summary of the session exactly when it is a fold — and then within the
 * seqs that summary folded itself; below the session's boundary (every cut, release and opening moves
 * seqs below it, and dropping a summary deletes the rows from its old boundary on as it moves the
 * boundary back: a row at or above the boundary names seqs that never left); no earlier than the
 * latest append of its messages (`at`); the runs one cut wrote do not overlap; and a summary's fold rows
 * share one version, newer than the fold of every summary before it. A file from before
 * the log has no rows to check. A branch's fold rows may name the summary it inherited or one of the
 * chain below it or below one of its own summaries (a rewind hands the abandoned branch the rows of folds
 * into them, and the summary that replaced one the session kept). A rewind's row (cut `rewind`) is about the conversation the rewind took
 * back: it names the abandoned branch (a session of kind `abandoned`, or none once that was deleted), and
 * none of the seq rules apply. Not checked: that every evicted message has a row (cuts made before a
 * file was migrated have none), nor kept rows covered by a run (a message pinned back into the window
 * keeps the row of the cut that took it out).
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import { CHECK_READS } from './statements.js'
import type { Fail } from './window-rules.js'

const CUTS = new Set([
  'trim-point',
  'tool-pair',
  'latest-trim-point',
  'newest-turn',
  'protected-only',
  'released',
  'summary',
  'fold',
  'opening',
])
const REASONS = new Set(['window-size', 'token-budget', 'overflow', 'summary', 'unprotected', 'validity'])

/**
 * Checks a session's eviction log rows.
 *
 * @param db - the connection (inside the checker's read transaction)
 * @param pk - the session's key
 * @param messageCount - its messages
 * @param boundary - its boundary
 * @param fail - where problems go
 */
export function checkEvictionRows(
  db: Database.Database,
  pk: number,
  messageCount: number,
  boundary: number,
  fail: Fail,
): void {
  if (prepareSpec(db, CHECK_READS.hasEvictionLog).get() === undefined) return
  const version = prepareSpec(db, CHECK_READS.sessionVersion).get(pk) ?? 0
  const summaries = new Map<number, [number, number][]>()
  for (const x of prepareSpec(db, CHECK_READS.summarySeqs).iterate(pk)) summaries.set(x.id, ranges(x.seqs))
  for (const x of prepareSpec(db, CHECK_READS.inheritedSummarySeqs).iterate(pk))
    summaries.set(x.id, ranges(x.seqs))
  const createdAt = prepareSpec(db, CHECK_READS.runCreatedAt)
  const byVersion = new Map<number, [number, number][]>()
  const foldVersions = new Map<number, number[]>()
  let shown = 0
  const report = (rule: string, detail: string): void => {
    if (shown++ < 5) fail(rule, detail)
  }
  const sessionKind = prepareSpec(db, CHECK_READS.sessionKind)
  for (const r of prepareSpec(db, CHECK_READS.evictions).iterate(pk)) {
    const run = `eviction log row ${r.from_seq}–${r.to_seq} (version ${r.version})`
    if (r.cut === 'rewind') {
      // A rewind's row is about the conversation it took back (those seqs are the abandoned branch's,
      // and the session may have used them again): its own rules.
      if (r.version > version)
        report('eviction log version', `${run} is newer than the session (version ${version})`)
      if (r.reason !== 'rewind' || r.from_seq > r.to_seq)
        report('eviction log rewind', `${run}: a rewind's row with reason ${r.reason}`)
      const kind = r.summary === null ? undefined : sessionKind.get(r.summary)
      if (kind !== undefined && kind !== 'abandoned')
        report(
          'eviction log rewind',
          `${run} names session key ${String(r.summary)}, a ${kind}, as its abandoned branch`,
        )
      continue
    }
    if (r.from_seq > r.to_seq || r.to_seq >= messageCount)
      report('eviction log range', `${run} is not a run of the session's ${messageCount} messages`)
    if (r.to_seq >= boundary)
      report('eviction log boundary', `${run} reaches the window: the session's boundary is ${boundary}`)
    if (r.version > version)
      report('eviction log version', `${run} is newer than the session (version ${version})`)
    if (!CUTS.has(r.cut) || !REASONS.has(r.reason))
      report('eviction log kind', `${run} has an unknown cut or reason: ${r.cut}, ${r.reason}`)
    if ((r.cut === 'fold') !== (r.summary !== null) || (r.summary !== null && !summaries.has(r.summary)))
      report('eviction log summary', `${run}: cut ${r.cut} with summary ${String(r.summary)}`)
    else if (
      r.summary !== null &&
      !(summaries.get(r.summary) ?? []).some(([a, b]) => a <= r.from_seq && r.to_seq < b)
    )
      report('eviction log summary', `${run} is not among the seqs summary ${r.summary} folded`)
    const appended = createdAt.get(pk, r.from_seq, r.to_seq)
    if (appended != null && r.at < appended)
      report('eviction log time', `${run} left at ${r.at}, before its messages were appended (${appended})`)
    byVersion.set(r.version, [...(byVersion.get(r.version) ?? []), [r.from_seq, r.to_seq]])
    if (r.summary !== null) foldVersions.set(r.summary, [...(foldVersions.get(r.summary) ?? []), r.version])
  }
  // A fold writes its rows in its summary's transaction: one version each, later summaries later ones (a
  // regenerated summary takes over its predecessor's rows, and is newer than every summary before it).
  let previous: [number, number] | undefined
  for (const [id, versions] of [...foldVersions].sort((a, b) => a[0] - b[0])) {
    const v = versions[0] ?? 0
    if (versions.some((x) => x !== v))
      report(
        'eviction log fold version',
        `the fold rows of summary ${id} have versions ${versions.join(', ')}`,
      )
    else if (previous !== undefined && v <= previous[1])
      report(
        'eviction log fold version',
        `the fold of summary ${id} (version ${v}) is no newer than that of summary ${previous[0]} (version ${previous[1]})`,
      )
    previous = [id, v]
  }
  for (const [v, runs] of byVersion) {
    runs.sort((a, b) => a[0] - b[0])
    for (let i = 1; i < runs.length; i++) {
      const [prev, cur] = [runs[i - 1], runs[i]]
      if (prev !== undefined && cur !== undefined && cur[0] <= prev[1])
        report(
          'eviction log runs',
          `the runs of version ${v} overlap: ${prev.join('–')} and ${cur.join('–')}`,
        )
    }
  }
}

/** A summary's `seqs` JSON as half-open ranges (none when it is not such an array: another rule says so). */
function ranges(seqs: string): [number, number][] {
  try {
    const parsed = JSON.parse(seqs) as unknown
    return Array.isArray(parsed)
      ? parsed.filter(
          (r): r is [number, number] =>
            Array.isArray(r) && typeof r[0] === 'number' && typeof r[1] === 'number',
        )
      : []
  } catch {
    return []
  }
}
