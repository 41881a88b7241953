/**
 * `import`'s last word on an export: every line can be well formed while the lines together describe no
 * session the library could have made (a running token sum that is not one, a boundary the kept rows
 * contradict, a current summary that has ended, a pinned flag the pin log does not back …). So once the
 * rows are written, and before the transaction commits, the imported session goes through the checker
 * `check` runs (`src/check/check-session.ts`), which also re-derives from each body what the export
 * carries beside it (the role, the flags, the running token sums); any problem throws, the transaction
 * rolls back, and the error names the line at fault and the problem.
 *
 * Kept apart from `commands/import.ts`, which only calls {@link refuseInvalidImport}.
 */
import { checkSession } from '../check/check-session.js'
import type { WindowRuleProblem } from '../check/window-rules.js'
import type { ContextStore } from '../store/context-store.js'
import { CliError } from './errors.js'

/** What the check needs to know of the parsed export. */
export interface ImportedLines {
  /** The message lines, in seq order. */
  readonly messages: readonly object[]
  /** The summary lines, each with the id the export gives it. */
  readonly summaries: readonly { readonly id: number }[]
  /** The line number of each parsed line (the header is line 1). */
  readonly lineOf: ReadonlyMap<object, number>
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
  const line = lineOf(first, lines, exportIds)
  const inExport = first.summaryId === undefined ? undefined : exportIds.get(first.summaryId)
  const renamed =
    inExport !== undefined && inExport !== first.summaryId ? ` (summary ${inExport} of the export)` : ''
  const more =
    problems.length > 1 ? `; and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'}` : ''
  throw new CliError(
    `line ${line}: ${first.rule} — ${first.detail}${renamed}${more}; nothing was imported`,
    'INVALID_EXPORT',
  )
}

/** The line a problem lies on: its message's, its summary's, or else the header's. */
function lineOf(p: WindowRuleProblem, lines: ImportedLines, exportIds: ReadonlyMap<number, number>): number {
  const at = (line: object | undefined): number | undefined =>
    line === undefined ? undefined : lines.lineOf.get(line)
  if (p.seq !== undefined) {
    const line = at(lines.messages[p.seq])
    if (line !== undefined) return line
  }
  if (p.summaryId !== undefined) {
    const id = exportIds.get(p.summaryId)
    const line = at(lines.summaries.find((s) => s.id === id))
    if (line !== undefined) return line
  }
  return 1
}
