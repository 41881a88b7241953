/**
 * What the checker reports (`check-session.ts` and the rules it runs): one problem per broken rule, with
 * where it lies — a message, a summary, or a row of the tool-call, pin or edit log — and the field at
 * fault, so `context-ledger import` can name the line of the export and the field, and `check` the row.
 */

/** A row of one of the session's logs, by its key (the logs keep the order the ledger wrote them in). */
export interface LogRow {
  /** `tool_calls`, `pin_events` or `message_edits`: the export's `toolCall`, `pinEvent`, `edit` lines. */
  readonly table: 'toolCall' | 'pinEvent' | 'edit'
  /** The row's key. */
  readonly id: number
}

/** One broken rule. */
export interface WindowRuleProblem {
  /** The session. */
  readonly sessionId: string
  /** The rule, e.g. `'protected in window'`. */
  readonly rule: string
  /** What was seen: the seqs and values involved. */
  readonly detail: string
  /** The message involved, when the problem is one message's (so `import` can name its line). */
  readonly seq?: number
  /** The summary involved, when the problem is one summary's. */
  readonly summaryId?: number
  /** The log row involved, when the problem is one such row's. */
  readonly row?: LogRow
  /**
   * The field at fault, as the export and the read API name it: `'late'`, `'repeatOf'`, `'name'`,
   * `'actor'`, or a path into a body such as `'message.content[0].text'`.
   */
  readonly field?: string
}

/** Where a problem lies, when it lies in one message, summary or log row. */
export interface ProblemPlace {
  /** The message. */
  readonly seq?: number | undefined
  /** The summary. */
  readonly summaryId?: number | undefined
  /** The log row. */
  readonly row?: LogRow | undefined
  /** The field. */
  readonly field?: string | undefined
}

/** Records one problem. */
export type Fail = (rule: string, detail: string, at?: ProblemPlace) => void

/**
 * A problem list and the function that adds to it.
 *
 * @param sessionId - the session the problems are of
 * @returns the list, and `fail(rule, detail, at?)`
 */
export function problemList(sessionId: string): { problems: WindowRuleProblem[]; fail: Fail } {
  const problems: WindowRuleProblem[] = []
  const fail: Fail = (rule, detail, at) => {
    problems.push({
      sessionId,
      rule,
      detail,
      ...(at?.seq === undefined ? {} : { seq: at.seq }),
      ...(at?.summaryId === undefined ? {} : { summaryId: at.summaryId }),
      ...(at?.row === undefined ? {} : { row: at.row }),
      ...(at?.field === undefined ? {} : { field: at.field }),
    })
  }
  return { problems, fail }
}

/**
 * A problem as one line, the way the property tests report it.
 *
 * @param p - a problem
 * @returns `window rule broken in session "…": rule — detail`
 */
export function describeProblem(p: WindowRuleProblem): string {
  return `window rule broken in session "${p.sessionId}": ${p.rule} — ${p.detail}`
}

/** How many offending rows a problem describes before it counts the rest. */
const SHOWN = 3

/**
 * The rows that broke one rule, reported as one problem (the first few named, the rest counted), placed
 * where the first of them lies — so a column cleared on every row is one line, not thousands.
 */
export class Offenders {
  private readonly details: string[] = []
  private first: ProblemPlace | undefined
  private more = 0

  /**
   * @param rule - the rule's name
   * @param what - what breaking it means, the problem's opening words
   */
  constructor(
    private readonly rule: string,
    private readonly what: string,
  ) {}

  /**
   * One row that breaks the rule.
   *
   * @param at - where it lies (a seq alone, or a place)
   * @param detail - what was seen there
   */
  add(at: number | ProblemPlace, detail: string): void {
    this.first ??= typeof at === 'number' ? { seq: at } : at
    if (this.details.length < SHOWN) this.details.push(detail)
    else this.more++
  }

  /**
   * Reports the problem, if any row broke the rule.
   *
   * @param fail - records it
   */
  report(fail: Fail): void {
    if (this.first === undefined) return
    const more = this.more > 0 ? `; and ${this.more} more` : ''
    fail(this.rule, `${this.what}: ${this.details.join('; ')}${more}`, this.first)
  }
}
