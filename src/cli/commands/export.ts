/**
 * `context-ledger export <file> <session> [-o out.jsonl]`: one session as JSON lines with every ledger
 * fact (`export-format.ts`). Streams: each table is read by an iterating statement and each line written
 * as it comes, waiting whenever the reader is behind, so memory stays flat however big the session is.
 * Everything is read in one read transaction: the export is one consistent state even while agents
 * write to the file.
 */
import { createWriteStream, openSync, rmSync, type WriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import { prepareSpec } from '../../db/typed-statement.js'
import { CliError, unknownSession } from '../errors.js'
import { EXPORT_FORMAT, EXPORT_VERSION, jsonField } from '../export-format.js'
import { count, visible } from '../format.js'
import { jsonFor, writeWaiting, type OutStream } from '../io.js'
import { openStore } from '../open-ledger.js'
import { Progress } from '../progress.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'

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

/** Opens the output file now, so that a path that cannot be written is one line of error, not a crash. */
function openOutput(path: string): WriteStream {
  let fd: number
  try {
    fd = openSync(path, 'w')
  } catch (error) {
    throw new CliError(
      `${path}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      'USAGE',
    )
  }
  return createWriteStream(path, { fd })
}

/**
 * Runs `export`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - the session
 * @param options - `output` (a file instead of stdout), `progress`
 * @returns the exit code
 */
export async function exportSession(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  options: { output?: string; progress?: boolean },
): Promise<number> {
  const store = await openStore(file)
  const db = store.connection()
  const fileOut = options.output === undefined ? undefined : openOutput(options.output)
  const sink: OutStream = fileOut ?? ctx.io.stdout
  const write = (value: unknown): Promise<void> =>
    writeWaiting(sink, jsonFor(sink, `${JSON.stringify(value)}\n`))
  let ok = false
  db.exec('BEGIN')
  try {
    const s = prepareSpec(db, CLI_READS.exportSession).get(sessionId)
    if (s === undefined) throw unknownSession(file, sessionId)
    const messages = prepareSpec(db, CLI_READS.messageCount).get(s.pk) ?? 0
    const counts = prepareSpec(db, CLI_READS.exportCounts).get({ s: s.pk }) ?? {
      tool_calls: 0,
      pin_events: 0,
      edits: 0,
      summaries: 0,
    }
    // The eviction log (a file from before it has none), read now: its count goes in the header.
    const evictions =
      prepareSpec(db, CLI_READS.hasEvictionLog).get() === undefined
        ? undefined
        : prepareSpec(db, CLI_READS.exportEvictions).all(s.pk)
    const progress = new Progress(ctx.io, options.progress !== false, `exporting ${sessionId}`, messages)
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
          summary: s.summary,
          // Only another format than Strands is named (`export-format.ts`).
          ...(s.format === null || s.format === 'strands' ? {} : { format: s.format }),
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
      },
    })
    let done = 0
    for (const m of prepareSpec(db, CLI_READS.exportMessages).iterate(s.pk)) {
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
      if (++done % 1000 === 0) progress.update(done)
    }
    for (const t of prepareSpec(db, CLI_READS.exportToolCalls).iterate(s.pk))
      await write({
        type: 'toolCall',
        toolUseId: t.tool_use_id,
        name: t.name,
        useSeq: t.use_seq,
        resultSeq: t.result_seq,
        status: t.status,
      })
    for (const p of prepareSpec(db, CLI_READS.exportPinEvents).iterate(s.pk))
      await write({
        type: 'pinEvent',
        seq: p.seq,
        action: p.action,
        actor: p.actor,
        reason: p.reason,
        at: p.at,
      })
    for (const e of prepareSpec(db, CLI_READS.exportEdits).iterate(s.pk))
      await write(
        withJson(
          { type: 'edit', seq: e.seq, kind: e.kind, actor: e.actor, reason: e.reason, at: e.at },
          { message: e.body },
        ),
      )
    for (const x of prepareSpec(db, CLI_READS.exportSummaries).iterate(s.pk))
      await write(
        withJson(
          {
            type: 'summary',
            id: x.id,
            trackingId: x.uid,
            replaces: x.replaces,
            regenerates: x.regenerates,
            fromBoundary: x.from_boundary,
            toBoundary: x.to_boundary,
            messageCount: x.message_count,
            tokens: x.tokens,
            model: x.model,
            promptHash: x.prompt_hash,
            createdAt: x.created_at,
            endedAt: x.ended_at,
            endReason: x.end_reason,
          },
          { seqs: x.seqs, message: x.body },
        ),
      )
    for (const e of evictions ?? [])
      await write({
        type: 'eviction',
        fromSeq: e.from_seq,
        toSeq: e.to_seq,
        version: e.version,
        at: e.at,
        cut: e.cut,
        reason: e.reason,
        summary: e.summary,
      })
    progress.done()
    if (fileOut !== undefined) {
      fileOut.end()
      await finished(fileOut)
      ctx.out.note(
        `exported ${visible(sessionId)}: ${count(messages)} messages to ${visible(options.output ?? '')}`,
      )
    }
    ok = true
    return 0
  } finally {
    if (db.inTransaction) db.exec('COMMIT')
    store.close()
    if (!ok && fileOut !== undefined) {
      fileOut.destroy()
      rmSync(options.output ?? '', { force: true })
    }
  }
}
