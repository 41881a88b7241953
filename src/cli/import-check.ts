/**
 * `import`'s last word on an export: every line can be well formed while the lines together describe no
 * session the library could have made (a running token sum that is not one, a boundary the kept rows
 * contradict, a current summary that has ended, a pinned flag the pin log does not back …). So once the
 * rows are written, and before the transaction commits, the imported session goes through the checker
 * `check` runs (`src/check/check-session.ts`), which also re-derives from each body what the export
 * carries beside it (the role, the flags, the running token sums) and holds every body, summary, edit,
 * tool call and pin event to the rules of the call that writes it (the validator `append` runs, the pin
 * attribution's bounds …); any problem throws, the transaction rolls back, and the error names the line
 * at fault — a message's, a summary's, a tool call's, a pin event's, an edit's, else the header — the
 * field, and the problem.
 *
 * Kept apart from `commands/import.ts`, which only calls {@link refuseInvalidImport}.
 */
import { checkSession } from '../check/check-session.js'
import type { LogRow, WindowRuleProblem } from '../check/problems.js'
import { CHECK_READS } from '../check/statements.js'
import { prepareSpec } from '../db/typed-statement.js'
import type { ContextStore } from '../store/context-store.js'
import { CliError } from './errors.js'

/** What the check needs to know of the parsed export. */
export interface ImportedLines {
  /** The seq of the first message line (0, or a branch's fork point + 1). */
  readonly firstSeq: number
  /** The message lines, in seq order. */
  readonly messages: readonly object[]
  /** The summary lines, each with the id the export gives it. */
  readonly summaries: readonly { readonly id: number }[]
  /** The tool call, pin event and edit lines, in the order they were written. */
  readonly toolCalls: readonly object[]
  readonly pinEvents: readonly object[]
  readonly edits: readonly object[]
  /** The line number of each parsed line. */
  readonly lineOf: ReadonlyMap<object, number>
  /** The line number of the session's header. */
  readonly headerLine: number
}

/**
 * Checks the session just written, inside the import's transaction; throws to roll it back.
 *
 * @param store - the store the import writes with
 * @param sessionId - the imported session's id
 * @param lines - the parsed export
 * @param summaryIds - the export's summary ids → the ids they were written under
 * @throws CliError `INVALID_EXPORT` naming the line and the first problem (and how many more there are)
 */
export function refuseInvalidImport(
  store: ContextStore,
  sessionId: string,
  lines: ImportedLines,
  summaryIds: ReadonlyMap<number, number>,
): void {
  const { problems } = checkSession(store, sessionId)
  const first = problems[0]
  if (first === undefined) return
  const exportIds = new Map([...summaryIds].map(([exported, written]) => [written, exported]))
  const line = lineOf(first, lines, exportIds, (row) => logIndex(store, sessionId, row))
  const inExport = first.summaryId === undefined ? undefined : exportIds.get(first.summaryId)
  const renamed =
    inExport !== undefined && inExport !== first.summaryId ? ` (summary ${inExport} of the export)` : ''
  const more =
    problems.length > 1 ? `; and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'}` : ''
  const field = first.field === undefined ? '' : `${first.field}: `
  throw new CliError(
    `line ${line}: ${field}${first.rule} — ${first.detail}${renamed}${more}; nothing was imported`,
    'INVALID_EXPORT',
  )
}

/** The place of a log row among the session's rows of that log (the export's lines keep their order). */
function logIndex(store: ContextStore, sessionId: string, row: LogRow): number | undefined {
  const db = store.connection()
  const pk = prepareSpec(db, CHECK_READS.session).get(sessionId)?.pk
  if (pk === undefined) return undefined
  const before = {
    toolCall: CHECK_READS.toolCallsBefore,
    pinEvent: CHECK_READS.pinEventsBefore,
    edit: CHECK_READS.editsBefore,
  }[row.table]
  return prepareSpec(db, before).get(pk, row.id)
}

/** The line a problem lies on: its log row's, its message's, its summary's, or else the header's. */
function lineOf(
  p: WindowRuleProblem,
  lines: ImportedLines,
  exportIds: ReadonlyMap<number, number>,
  indexOf: (row: LogRow) => number | undefined,
): number {
  const at = (line: object | undefined): number | undefined =>
    line === undefined ? undefined : lines.lineOf.get(line)
  if (p.row !== undefined) {
    const i = indexOf(p.row)
    const log = { toolCall: lines.toolCalls, pinEvent: lines.pinEvents, edit: lines.edits }[p.row.table]
    const line = i === undefined ? undefined : at(log[i])
    if (line !== undefined) return line
  }
  if (p.seq !== undefined) {
    const line = at(lines.messages[p.seq - lines.firstSeq])
    if (line !== undefined) return line
  }
  if (p.summaryId !== undefined) {
    const id = exportIds.get(p.summaryId)
    const line = at(lines.summaries.find((s) => s.id === id))
    if (line !== undefined) return line
  }
  return lines.headerLine
}
