/**
 * Writing one session of an import (`commands/import.ts` runs it in its one transaction, parents first):
 * every row as the export gives it — a branch with its fork and its own state on the rows it inherits,
 * each such row's owner read from the branch's lineage in the file, its inherited summary found by its
 * session and trackingId — and the searchable text of each message and summary derived by the session's
 * format, as an append derives it.
 */
import type Database from 'better-sqlite3'
import { BRANCH_STATEMENTS } from '../db/branch-statements.js'
import { prepareSpec, type PreparedAll } from '../db/typed-statement.js'
import { formatNamed } from '../formats/index.js'
import { lineageOf, segmentOf } from '../store/branches/lineage.js'
import { columnText, type BranchHeader, type EvictionLine } from './export-format.js'
import { refuse, type Parsed } from './import-parse.js'
import { IMPORT_READS, type CLI_WRITES } from './import-statements.js'
import { searchableText } from './import-text.js'

/** The import's write statements. */
export type Writes = PreparedAll<typeof CLI_WRITES>

const bit = (b: boolean): number => (b ? 1 : 0)

/** A field back to its column's text (fields in `raw` were checked to be strings). */
function text(value: unknown, raw: readonly string[] | undefined, field: string): string | null {
  return columnText(value, raw?.includes(field) === true)
}

/** What one session's write left for the end of the import. */
export interface Written {
  /** Its key. */
  readonly pk: number
  /** The export's summary ids → the ids they were written under. */
  readonly summaryIds: Map<number, number>
  /** A rewind's rows, written once every session is (the abandoned branch they name may come later). */
  readonly rewinds: readonly EvictionLine[]
}

/** A branch's inherited summary, found in the file by its session and trackingId. */
function forkSummaryOf(
  db: Database.Database,
  branch: BranchHeader,
  rename: (id: string) => string,
  line: number,
): number | null {
  if (branch.forkSummary === null) return null
  const { sessionId, trackingId } = branch.forkSummary
  const id = prepareSpec(db, IMPORT_READS.summaryByName).get(rename(sessionId), trackingId)
  if (id === undefined)
    throw refuse(
      line,
      `session.branch.forkSummary: session "${rename(sessionId)}" has no summary ${JSON.stringify(trackingId)}`,
    )
  return id
}

/**
 * Writes one session's rows.
 *
 * @param db - the connection, inside the import's transaction
 * @param w - the write statements
 * @param parsed - the session's lines
 * @param id - the id it is written under
 * @param parent - its parent's key (a branch), or undefined
 * @param rename - the id a session of the input is written under
 * @param onMessage - called after each message is written
 * @returns its key, its summaries' ids and its rewind rows
 */
export function writeSession(
  db: Database.Database,
  w: Writes,
  parsed: Parsed,
  id: string,
  parent: number | undefined,
  rename: (id: string) => string,
  onMessage: () => void,
): Written {
  const s = parsed.header.session
  const b = s.branch
  // The session's format (absent: Strands): its bodies' text is derived by it, and the check after the
  // writes validates every body, edit and summary as that format.
  const format = formatNamed(s.format)
  const forkSummary = b === undefined ? null : forkSummaryOf(db, b, rename, parsed.headerLine)
  const pk = Number(
    w.insertSession.run({
      id,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      metadata: text(s.metadata, s.raw, 'metadata'),
      boundary: s.boundary,
      version: s.version,
      keptCount: s.keptCount,
      keptTokens: s.keptTokens,
      keptFirst: s.keptFirst,
      limits: text(s.limits, s.raw, 'limits'),
      format: s.format === 'strands' ? null : (s.format ?? null),
      parent: parent ?? null,
      forkSeq: b?.forkSeq ?? null,
      kind: b?.kind ?? 'root',
      forkedAt: b?.forkedAt ?? null,
      forkActor: b?.actor ?? null,
      forkReason: b?.reason ?? null,
      forkVersion: b?.forkVersion ?? null,
      forkTokens: b?.forkTokens ?? null,
      forkTrimPoint: b === undefined ? null : bit(b.forkTrimPoint),
      forkPairStart: b === undefined ? null : bit(b.forkPairStart),
      forkSummary,
      forkSummaryEndedAt: b?.forkSummaryEndedAt ?? null,
      forkSummaryEndReason: b?.forkSummaryEndReason ?? null,
    }).lastInsertRowid,
  )
  for (const m of parsed.messages) {
    const body = text(m.message, m.raw, 'message') ?? ''
    w.insertMessage.run(
      pk,
      m.seq,
      m.trackingId,
      m.role,
      body,
      m.tokens,
      m.cumTokens,
      bit(m.pinned),
      bit(m.kept),
      bit(m.recheck),
      bit(m.plainUser),
      bit(m.trimPoint),
      bit(m.pairStart),
      bit(m.hasToolUse),
      bit(m.hasToolResult),
      m.createdAt,
      text(m.windowMessage, m.raw, 'windowMessage'),
      m.windowTokens,
      m.repeatOf,
      bit(m.late),
      searchableText(format, body),
    )
    onMessage()
  }
  for (const t of parsed.toolCalls)
    w.insertToolCall.run(pk, t.toolUseId, t.name, t.useSeq, t.resultSeq, t.status)
  for (const e of parsed.pinEvents)
    w.insertPinEvent.run(pk, e.seq, e.action, e.actor, e.reason, e.at, e.version ?? null)
  for (const e of parsed.edits)
    w.insertEdit.run(
      pk,
      e.seq,
      e.kind,
      e.actor,
      e.reason,
      e.at,
      text(e.message, e.raw, 'message'),
      e.version ?? null,
    )
  const summaryIds = writeSummaries(w, parsed, pk, forkSummary, format)
  const shown =
    b?.showsForkSummary === true
      ? forkSummary
      : s.summary === null
        ? null
        : (summaryIds.get(s.summary) ?? null)
  if (shown !== null) w.setSummary.run(shown, pk)
  const rewinds: EvictionLine[] = []
  for (const e of parsed.evictions) {
    if (e.cut === 'rewind') rewinds.push(e)
    else
      w.insertEviction.run(
        pk,
        e.toSeq,
        e.version,
        e.fromSeq,
        e.at,
        e.cut,
        e.reason,
        e.summary === null ? null : (summaryIds.get(e.summary) ?? null),
        e.clock ?? null,
      )
  }
  if (parsed.branchRows.length > 0) writeBranchRows(db, w, parsed, pk)
  // A loop, not Math.max(...): a session's log may be longer than the arguments a call can take.
  let clock = b?.forkVersion ?? 0
  for (const e of parsed.pinEvents) clock = Math.max(clock, e.version ?? 0)
  for (const e of parsed.edits) clock = Math.max(clock, e.version ?? 0)
  for (const e of parsed.evictions) clock = Math.max(clock, e.clock ?? 0)
  w.raiseClock.run(clock)
  return { pk, summaryIds, rewinds }
}

/** The session's summaries, each `replaces`/`regenerates` its written id (or the inherited summary's). */
function writeSummaries(
  w: Writes,
  parsed: Parsed,
  pk: number,
  forkSummary: number | null,
  format: ReturnType<typeof formatNamed>,
): Map<number, number> {
  const ids = new Map<number, number>()
  const ref = (exported: number | null, fork: boolean | undefined): number | null =>
    fork === true ? forkSummary : exported === null ? null : (ids.get(exported) ?? null)
  for (const x of parsed.summaries) {
    const body = text(x.message, x.raw, 'message') ?? ''
    const id = w.insertSummary.run(
      pk,
      x.trackingId,
      ref(x.replaces, x.replacesForkSummary),
      ref(x.regenerates, x.regeneratesForkSummary),
      x.fromBoundary,
      x.toBoundary,
      text(x.seqs, x.raw, 'seqs') ?? '[]',
      x.messageCount,
      body,
      x.tokens,
      x.model,
      x.promptHash,
      x.createdAt,
      x.endedAt,
      x.endReason,
      searchableText(format, body),
    ).lastInsertRowid
    ids.set(x.id, Number(id))
  }
  return ids
}

/** A branch's rows, each under the session that owns its seq in the branch's lineage. */
function writeBranchRows(db: Database.Database, w: Writes, parsed: Parsed, pk: number): void {
  const lineage = lineageOf(prepareSpec(db, BRANCH_STATEMENTS.lineage).all(pk))
  for (const o of parsed.branchRows) {
    const owner = segmentOf(lineage, o.seq)?.owner
    if (owner === undefined || owner === pk)
      throw refuse(parsed.lineOf.get(o) ?? parsed.headerLine, `branch row seq ${o.seq} is no inherited seq`)
    w.insertBranchRow.run(
      pk,
      o.seq,
      owner,
      bit(o.pinned),
      bit(o.kept),
      bit(o.recheck),
      text(o.windowMessage, o.raw, 'windowMessage'),
      o.windowTokens,
    )
  }
}
