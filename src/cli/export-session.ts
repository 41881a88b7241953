/**
 * One session of an export (`export-format.ts`): its header, then its messages, tool calls, pin events,
 * edits, summaries, eviction log rows and — for a branch — its own state on the rows it inherits, each
 * line written as its row is read (so memory stays flat). A branch's header names its parent by id and
 * carries every column of its fork; a summary it inherited is named by its session and trackingId (its
 * key is the source file's own).
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import { unknownSession } from './errors.js'
import { EXPORT_FORMAT, EXPORT_VERSION, jsonField, type BranchHeader } from './export-format.js'
import { EXPORT_READS, type SessionExportRow } from './export-statements.js'
import { CLI_READS } from './statements.js'

/** Writes one line (waiting while the reader is behind). */
export type WriteLine = (value: unknown) => Promise<void>

/** Builds a line's JSON fields from JSON text columns, listing in `raw` those kept as text. */
function withJson(
  line: Record<string, unknown>,
  columns: Record<string, string | null>,
): Record<string, unknown> {
  const raw: string[] = []
  for (const [field, text] of Object.entries(columns)) {
    const f = jsonField(text)
    line[field] = f.value
    if (f.raw) raw.push(field)
  }
  if (raw.length > 0) line.raw = raw
  return line
}

/** A branch's fork as the header carries it; undefined for a root. */
function branchOf(db: Database.Database, s: SessionExportRow): BranchHeader | undefined {
  if (s.parent_id === null || s.kind === 'root') return undefined
  const named =
    s.fork_summary === null ? undefined : prepareSpec(db, EXPORT_READS.summaryName).get(s.fork_summary)
  return {
    parent: s.parent_id,
    forkSeq: s.fork_seq ?? 0,
    kind: s.kind,
    forkedAt: s.forked_at ?? 0,
    actor: s.fork_actor,
    reason: s.fork_reason,
    forkVersion: s.fork_version ?? 0,
    forkTokens: s.fork_tokens ?? 0,
    forkTrimPoint: s.fork_trim_point === 1,
    forkPairStart: s.fork_pair_start === 1,
    forkSummary: named === undefined ? null : { sessionId: named.session_id, trackingId: named.uid },
    forkSummaryEndedAt: s.fork_summary_ended_at,
    forkSummaryEndReason: s.fork_summary_end_reason,
    showsForkSummary: s.summary !== null && s.summary === s.fork_summary,
  }
}

/**
 * Writes one session's lines.
 *
 * @param db - the connection, inside the export's read transaction
 * @param file - the ledger, for errors
 * @param sessionId - the session
 * @param write - writes one line
 * @param onMessages - called every 1,000 messages with how many were written
 * @returns how many messages were written
 * @throws CliError `UNKNOWN_SESSION` when the file has no such session
 */
export async function writeSessionExport(
  db: Database.Database,
  file: string,
  sessionId: string,
  write: WriteLine,
  onMessages: (done: number) => void,
): Promise<number> {
  const s = prepareSpec(db, EXPORT_READS.exportSession).get(sessionId)
  if (s === undefined) throw unknownSession(file, sessionId)
  const counts = prepareSpec(db, EXPORT_READS.exportCounts).get({ s: s.pk }) ?? {
    tool_calls: 0,
    pin_events: 0,
    edits: 0,
    summaries: 0,
  }
  // The eviction log (a file from before it has none), read now: its count goes in the header.
  const evictions =
    prepareSpec(db, CLI_READS.hasEvictionLog).get() === undefined
      ? undefined
      : prepareSpec(db, EXPORT_READS.exportEvictions).all(s.pk)
  const branch = branchOf(db, s)
  // The session's own messages (a branch's seqs start after its fork point).
  const end = prepareSpec(db, EXPORT_READS.messageCount).get(s.pk) ?? 0
  const messages = end === 0 ? 0 : end - (branch === undefined ? 0 : branch.forkSeq + 1)
  const branchRows = branch === undefined ? 0 : (prepareSpec(db, EXPORT_READS.branchRowCount).get(s.pk) ?? 0)
  await write({
    type: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    schemaVersion: db.pragma('user_version', { simple: true }),
    exportedAt: new Date().toISOString(),
    session: withJson(
      {
        id: s.id,
        createdAt: s.created_at,
        updatedAt: s.updated_at,
        boundary: s.boundary,
        version: s.version,
        keptCount: s.kept_count,
        keptTokens: s.kept_tokens,
        keptFirst: s.kept_first,
        // An inherited summary is not the session's: `branch.showsForkSummary` says the window shows it.
        summary: branch?.showsForkSummary === true ? null : s.summary,
        // Only another format than Strands is named (`export-format.ts`).
        ...(s.format === null || s.format === 'strands' ? {} : { format: s.format }),
        ...(branch === undefined ? {} : { branch }),
      },
      { metadata: s.metadata, limits: s.limits },
    ),
    counts: {
      messages,
      toolCalls: counts.tool_calls,
      pinEvents: counts.pin_events,
      edits: counts.edits,
      summaries: counts.summaries,
      ...(evictions === undefined ? {} : { evictions: evictions.length }),
      ...(branch === undefined ? {} : { branchRows }),
    },
  })
  await writeMessages(db, s.pk, write, onMessages)
  await writeLogs(db, s, write)
  for (const e of evictions ?? [])
    await write({
      type: 'eviction',
      fromSeq: e.from_seq,
      toSeq: e.to_seq,
      version: e.version,
      at: e.at,
      cut: e.cut,
      reason: e.reason,
      ...(e.clock === null ? {} : { clock: e.clock }),
      // A rewind's row names the abandoned branch's session, by its id (never a summary).
      ...(e.cut === 'rewind'
        ? {
            summary: null,
            abandoned:
              e.summary === null
                ? null
                : (prepareSpec(db, EXPORT_READS.sessionIdByPk).get(e.summary) ?? null),
          }
        : { summary: e.summary }),
    })
  if (branch !== undefined)
    for (const o of prepareSpec(db, EXPORT_READS.exportBranchRows).iterate(s.pk))
      await write(
        withJson(
          {
            type: 'branchRow',
            seq: o.seq,
            pinned: o.pinned === 1,
            kept: o.kept === 1,
            recheck: o.recheck === 1,
            windowTokens: o.window_tokens,
          },
          { windowMessage: o.window_body },
        ),
      )
  return messages
}

/** The session's message lines, in seq order. */
async function writeMessages(
  db: Database.Database,
  pk: number,
  write: WriteLine,
  onMessages: (done: number) => void,
): Promise<void> {
  let done = 0
  for (const m of prepareSpec(db, EXPORT_READS.exportMessages).iterate(pk)) {
    await write(
      withJson(
        {
          type: 'message',
          seq: m.seq,
          trackingId: m.uid,
          role: m.role,
          tokens: m.tokens,
          cumTokens: m.cum_tokens,
          pinned: m.pinned === 1,
          kept: m.kept === 1,
          recheck: m.recheck === 1,
          plainUser: m.plain_user === 1,
          trimPoint: m.trim_point === 1,
          pairStart: m.pair_start === 1,
          hasToolUse: m.has_tool_use === 1,
          hasToolResult: m.has_tool_result === 1,
          createdAt: m.created_at,
          windowTokens: m.window_tokens,
          repeatOf: m.repeat_of,
          late: m.late === 1,
        },
        { message: m.body, windowMessage: m.window_body },
      ),
    )
    if (++done % 1000 === 0) onMessages(done)
  }
}

/** The session's tool calls, pin events, edits and summaries, each in the order the ledger wrote them. */
async function writeLogs(db: Database.Database, s: SessionExportRow, write: WriteLine): Promise<void> {
  for (const t of prepareSpec(db, EXPORT_READS.exportToolCalls).iterate(s.pk))
    await write({
      type: 'toolCall',
      toolUseId: t.tool_use_id,
      name: t.name,
      useSeq: t.use_seq,
      resultSeq: t.result_seq,
      status: t.status,
    })
  for (const p of prepareSpec(db, EXPORT_READS.exportPinEvents).iterate(s.pk))
    await write({
      type: 'pinEvent',
      seq: p.seq,
      action: p.action,
      actor: p.actor,
      reason: p.reason,
      at: p.at,
      ...(p.version === null ? {} : { version: p.version }),
    })
  for (const e of prepareSpec(db, EXPORT_READS.exportEdits).iterate(s.pk))
    await write(
      withJson(
        {
          type: 'edit',
          seq: e.seq,
          kind: e.kind,
          actor: e.actor,
          reason: e.reason,
          at: e.at,
          ...(e.version === null ? {} : { version: e.version }),
        },
        { message: e.body },
      ),
    )
  const fork = s.parent_id === null ? null : s.fork_summary
  // A summary that folded or regenerated the inherited one names it by a flag (its key is not this session's).
  const ref = (id: number | null, flag: string): Record<string, unknown> =>
    id !== null && id === fork ? { [flag]: true, id: null } : { id }
  for (const x of prepareSpec(db, EXPORT_READS.exportSummaries).iterate(s.pk)) {
    const replaces = ref(x.replaces, 'replacesForkSummary')
    const regenerates = ref(x.regenerates, 'regeneratesForkSummary')
    await write(
      withJson(
        {
          type: 'summary',
          id: x.id,
          trackingId: x.uid,
          replaces: replaces.id,
          regenerates: regenerates.id,
          fromBoundary: x.from_boundary,
          toBoundary: x.to_boundary,
          messageCount: x.message_count,
          tokens: x.tokens,
          model: x.model,
          promptHash: x.prompt_hash,
          createdAt: x.created_at,
          endedAt: x.ended_at,
          endReason: x.end_reason,
          ...('replacesForkSummary' in replaces ? { replacesForkSummary: true } : {}),
          ...('regeneratesForkSummary' in regenerates ? { regeneratesForkSummary: true } : {}),
        },
        { seqs: x.seqs, message: x.body },
      ),
    )
  }
}
