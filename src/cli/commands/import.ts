/**
 * `context-ledger import <file> [--as <id>] [-i in.jsonl]`: restores a session that `export` wrote, with
 * every ledger fact, into a file (created if it does not exist).
 *
 * Every line is read and checked first — its JSON, its fields (`export-format.ts`), and what ties lines
 * together (dense seqs, counts as the header says, references to messages and summaries that exist) — so
 * a malformed line is refused with its line number before anything is written, and the write lock is not
 * held while the input arrives. Then one transaction writes the session's rows as they were (the session
 * id `--as` names, if given); an existing session id is refused. Holds the parsed session in memory
 * meanwhile (about the size of the export). A file that does not exist is built under a temporary name
 * and published, never over a file that appeared meanwhile (`import-target.ts`).
 */
import { existsSync, statSync } from 'node:fs'
import { ContextLedgerError } from '../../errors.js'
import { prepareSpec } from '../../db/typed-statement.js'
import { SEARCH_WRITE_STATEMENTS } from '../../db/search-statements.js'
import { checkSessionId } from '../../store/context-store.js'
import { openContextStore } from '../../store/context-store.js'
import { CliError, fromLedgerError } from '../errors.js'
import { ExportTrackingIds } from '../export-tracking-ids.js'
import { refuseInvalidImport } from '../import-check.js'
import { importTarget } from '../import-target.js'
import {
  bodyLine,
  columnText,
  headerLine,
  type EditLine,
  type HeaderLine,
  type MessageLine,
  type PinEventLine,
  type SummaryLine,
  type EvictionLine,
  type ToolCallLine,
} from '../export-format.js'
import { count, visible } from '../format.js'
import { currentSchemaVersion, importOlderSchemaMessage, inspect } from '../open-ledger.js'
import { Progress } from '../progress.js'
import { exportLines } from '../read-lines.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'
import { prepareWrites } from '../import-statements.js'
import { searchableText } from '../import-text.js'
import { formatNamed } from '../../formats/index.js'
import { rawProblem } from '../export-raw.js'

/** A checked export, ready to write. */
interface Parsed {
  header: HeaderLine
  messages: MessageLine[]
  toolCalls: ToolCallLine[]
  pinEvents: PinEventLine[]
  edits: EditLine[]
  summaries: SummaryLine[]
  evictions: EvictionLine[]
  lines: number
  /** The line number of each parsed line. */
  lineOf: Map<object, number>
}

function refuse(line: number, what: string): CliError {
  return new CliError(`line ${line}: ${what}; nothing was imported`, 'INVALID_EXPORT')
}

function zodProblem(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const i = issues[0]
  if (i === undefined) return 'invalid'
  return i.path.length === 0 ? i.message : `${i.path.map(String).join('.')}: ${i.message}`
}

/** Fields listed in `raw` must hold the stored text. */
function checkRaw(line: object, n: number): void {
  const problem = rawProblem(line)
  if (problem !== undefined) throw refuse(n, problem)
}

/** Reads and checks every line. */
async function parse(lines: AsyncIterable<string>, progress: Progress): Promise<Parsed> {
  const lineOf = new Map<object, number>()
  let n = 0
  let blank = 0
  let header: HeaderLine | undefined
  const p: Omit<Parsed, 'header' | 'lines' | 'lineOf'> = {
    messages: [],
    toolCalls: [],
    pinEvents: [],
    edits: [],
    summaries: [],
    evictions: [],
  }
  const summaryIds = new Set<number>()
  const trackingIds = new ExportTrackingIds()
  for await (const text of lines) {
    n++
    if (text.trim() === '') {
      blank = blank === 0 ? n : blank
      continue
    }
    if (blank !== 0) throw refuse(blank, 'a blank line inside the export')
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw refuse(n, `not JSON (${error instanceof Error ? error.message : String(error)})`)
    }
    if (header === undefined) {
      const h = headerLine.safeParse(value)
      if (!h.success)
        throw refuse(n, `not the header of a context-ledger export (${zodProblem(h.error.issues)})`)
      header = h.data
      checkRaw(header.session, n)
      continue
    }
    const r = bodyLine.safeParse(value)
    if (!r.success) throw refuse(n, zodProblem(r.error.issues))
    const line = r.data
    checkRaw(line, n)
    lineOf.set(line, n)
    const limit = header.counts.messages
    const inRange = (seq: number | null, field: string): void => {
      if (seq !== null && seq >= limit)
        throw refuse(n, `${field} ${seq} names no message (the session has ${limit})`)
    }
    switch (line.type) {
      case 'message':
        if (line.seq !== p.messages.length)
          throw refuse(n, `message seq ${line.seq} out of order (expected ${p.messages.length})`)
        inRange(line.seq, 'seq')
        if (line.message === null) throw refuse(n, 'message: a message needs a body')
        trackingIds.message(line.trackingId, n)
        p.messages.push(line)
        if (p.messages.length % 1000 === 0) progress.update(p.messages.length)
        break
      case 'toolCall':
        inRange(line.useSeq, 'useSeq')
        inRange(line.resultSeq, 'resultSeq')
        p.toolCalls.push(line)
        break
      case 'pinEvent':
        inRange(line.seq, 'seq')
        p.pinEvents.push(line)
        break
      case 'edit':
        inRange(line.seq, 'seq')
        p.edits.push(line)
        break
      case 'summary':
        if (summaryIds.has(line.id)) throw refuse(n, `summary id ${line.id} appears twice`)
        for (const [field, ref] of [
          ['replaces', line.replaces],
          ['regenerates', line.regenerates],
        ] as const)
          if (ref !== null && !summaryIds.has(ref))
            throw refuse(n, `${field} ${ref} names no earlier summary of the export`)
        if (line.message === null) throw refuse(n, 'message: a summary needs a body')
        trackingIds.summary(line.trackingId, n)
        summaryIds.add(line.id)
        p.summaries.push(line)
        break
      case 'eviction':
        inRange(line.toSeq, 'toSeq')
        if (line.fromSeq > line.toSeq) throw refuse(n, `fromSeq ${line.fromSeq} is after toSeq ${line.toSeq}`)
        if (line.summary !== null && !summaryIds.has(line.summary))
          throw refuse(n, `summary ${line.summary} names no summary of the export before it`)
        p.evictions.push(line)
        break
    }
  }
  if (header === undefined)
    throw new CliError(
      'the input is empty: an export starts with its header line; nothing was imported',
      'INVALID_EXPORT',
    )
  const end = (what: string): CliError =>
    new CliError(
      `the export ends at line ${n} ${what} (a truncated file?); nothing was imported`,
      'INVALID_EXPORT',
    )
  const c = header.counts
  const want: [string, number, number][] = [
    ['messages', c.messages, p.messages.length],
    ['tool calls', c.toolCalls, p.toolCalls.length],
    ['pin events', c.pinEvents, p.pinEvents.length],
    ['edits', c.edits, p.edits.length],
    ['summaries', c.summaries, p.summaries.length],
    ['eviction log rows', c.evictions ?? 0, p.evictions.length],
  ]
  for (const [what, expected, found] of want)
    if (expected !== found)
      throw end(`with ${count(found)} ${what}, where its header says ${count(expected)}`)
  if (header.session.summary !== null && !summaryIds.has(header.session.summary))
    throw end(`without summary ${header.session.summary}, which the session shows`)
  if (header.session.boundary > c.messages)
    throw refuse(1, `session.boundary ${header.session.boundary} is past the last message`)
  return { header, ...p, lines: n, lineOf }
}

const bit = (b: boolean): number => (b ? 1 : 0)
const hasRaw = (raw: readonly string[] | undefined, field: string): boolean => raw?.includes(field) === true

/** A field back to its column's text (fields in `raw` were checked to be strings). */
function text(value: unknown, raw: readonly string[] | undefined, field: string): string | null {
  return columnText(value, hasRaw(raw, field))
}

/**
 * Runs `import`.
 *
 * @param ctx - output
 * @param file - the ledger to import into (created when missing)
 * @param options - `as`, `input`, `json`, `progress`; `maxLineBytes` (tests: see `read-lines.ts`)
 * @returns the exit code
 */
export async function importSession(
  ctx: CommandContext,
  file: string,
  options: { as?: string; input?: string; json?: boolean; progress?: boolean; maxLineBytes?: number },
): Promise<number> {
  const lines = exportLines(ctx.io.stdin, options)
  const progress = new Progress(ctx.io, options.progress !== false, 'reading the export')
  const parsed = await parse(lines, progress)
  progress.done()
  const { header } = parsed
  const current = currentSchemaVersion()
  if (header.schemaVersion > current)
    throw new CliError(
      `line 1: the export was made from a ledger at schema version ${header.schemaVersion}, newer than this context-ledger's ${current}; upgrade context-ledger to import it`,
      'SCHEMA_TOO_NEW',
    )
  if (header.schemaVersion < current)
    throw new CliError(
      `line 1: the export was made from a ledger at schema version ${header.schemaVersion}; this context-ledger imports exports of version ${current}: export it again with this version (after context-ledger upgrade on the source file)`,
      'SCHEMA_TOO_OLD',
    )
  const sessionId = options.as ?? header.session.id
  try {
    checkSessionId(sessionId)
  } catch (error) {
    throw new CliError(`--as: ${error instanceof Error ? error.message : String(error)}`, 'USAGE')
  }
  // An existing file at an older schema is refused, not upgraded on the side (an empty one becomes a ledger).
  if (existsSync(file) && statSync(file).size > 0) {
    const found = inspect(file, { older: true })
    found.db.close()
    if (found.kind === 'older')
      throw new CliError(importOlderSchemaMessage(file, found.schemaVersion, found.current), 'SCHEMA_TOO_OLD')
  }
  // A new file is built under a temporary name and published when complete (`import-target.ts`).
  const target = importTarget(file)
  let store
  try {
    store = openContextStore(target.path)
  } catch (error) {
    target.discard()
    if (error instanceof ContextLedgerError) throw fromLedgerError(error, file)
    throw error
  }
  try {
    const db = store.connection()
    const w = prepareWrites(db)
    const exists = prepareSpec(db, CLI_READS.sessionPk)
    const indexSummaries = prepareSpec(db, SEARCH_WRITE_STATEMENTS.indexSummariesFrom)
    const written = new Progress(
      ctx.io,
      options.progress !== false,
      `importing ${sessionId}`,
      parsed.messages.length,
    )
    store.batch(sessionId, () => {
      if (exists.get(sessionId) !== undefined)
        throw new CliError(
          `${file} already has a session "${sessionId}"; nothing was imported. Import it under another id with --as <newId>`,
          'SESSION_EXISTS',
        )
      const s = header.session
      // The session's format (absent: Strands): its bodies' text is derived by it, and the check below
      // validates every body, edit and summary as that format.
      const format = formatNamed(s.format)
      const pk = Number(
        w.insertSession.run(
          sessionId,
          s.createdAt,
          s.updatedAt,
          text(s.metadata, s.raw, 'metadata'),
          s.boundary,
          s.version,
          s.keptCount,
          s.keptTokens,
          s.keptFirst,
          text(s.limits, s.raw, 'limits'),
          s.format === 'strands' ? null : (s.format ?? null),
        ).lastInsertRowid,
      )
      parsed.messages.forEach((m, i) => {
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
        if (i % 1000 === 999) written.update(i + 1)
      })
      for (const t of parsed.toolCalls)
        w.insertToolCall.run(pk, t.toolUseId, t.name, t.useSeq, t.resultSeq, t.status)
      for (const e of parsed.pinEvents) w.insertPinEvent.run(pk, e.seq, e.action, e.actor, e.reason, e.at)
      for (const e of parsed.edits)
        w.insertEdit.run(pk, e.seq, e.kind, e.actor, e.reason, e.at, text(e.message, e.raw, 'message'))
      const ids = new Map<number, number>()
      for (const x of parsed.summaries) {
        const body = text(x.message, x.raw, 'message') ?? ''
        const id = w.insertSummary.run(
          pk,
          x.trackingId,
          x.replaces === null ? null : (ids.get(x.replaces) ?? null),
          x.regenerates === null ? null : (ids.get(x.regenerates) ?? null),
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
      if (s.summary !== null) w.setSummary.run(ids.get(s.summary) ?? null, pk)
      for (const e of parsed.evictions)
        w.insertEviction.run(
          pk,
          e.toSeq,
          e.version,
          e.fromSeq,
          e.at,
          e.cut,
          e.reason,
          e.summary === null ? null : (ids.get(e.summary) ?? null),
        )
      refuseInvalidImport(store, sessionId, parsed, ids)
      // Summaries enter the full-text index in the transaction that writes them, from the same view as every
      // other write; the messages wait above the index's watermark like appended ones, and this
      // transaction's commit indexes them when they make a batch (docs/design.md, "Recall").
      if (ids.size > 0) indexSummaries.run(-Math.min(...ids.values()))
    })
    written.done()
    store.close()
    target.publish()
    const result = {
      file,
      sessionId,
      format: header.session.format ?? 'strands',
      messages: parsed.messages.length,
      toolCalls: parsed.toolCalls.length,
      pinEvents: parsed.pinEvents.length,
      edits: parsed.edits.length,
      summaries: parsed.summaries.length,
    }
    if (options.json === true) ctx.out.json(result)
    else
      ctx.out.note(
        `imported session "${visible(sessionId)}" into ${visible(file)}: ${count(result.messages)} messages, ${count(result.toolCalls)} tool calls, ${count(result.pinEvents)} pin events, ${count(result.edits)} edits, ${count(result.summaries)} summaries`,
      )
    return 0
  } finally {
    store.close()
    target.discard()
  }
}
