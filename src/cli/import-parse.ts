/**
 * `import` reads its input before anything is written: every line's JSON and fields
 * (`export-format.ts`), and what ties a session's lines together — dense seqs from its first own seq (0,
 * or a branch's fork point + 1), counts as its header says, references to messages and summaries that
 * exist — so a malformed line is refused with its line number while no lock is held. An input holds one
 * session, or several (`export --tree`): each starts with its own header line.
 */
import {
  bodyLine,
  headerLine,
  type BranchRowLine,
  type EditLine,
  type EvictionLine,
  type HeaderLine,
  type MessageLine,
  type PinEventLine,
  type SummaryLine,
  type ToolCallLine,
} from './export-format.js'
import { CliError } from './errors.js'
import { rawProblem } from './export-raw.js'
import { ExportTrackingIds } from './export-tracking-ids.js'
import { count } from './format.js'
import type { Progress } from './progress.js'

/** One session of the input, checked and ready to write. */
export interface Parsed {
  header: HeaderLine
  /** The line number of its header. */
  headerLine: number
  messages: MessageLine[]
  toolCalls: ToolCallLine[]
  pinEvents: PinEventLine[]
  edits: EditLine[]
  summaries: SummaryLine[]
  evictions: EvictionLine[]
  branchRows: BranchRowLine[]
  /** The line number of each parsed line. */
  lineOf: Map<object, number>
}

/**
 * The error for a line the import refuses.
 *
 * @param line - its number
 * @param what - what is wrong
 * @returns the error
 */
export function refuse(line: number, what: string): CliError {
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

/** The first own seq of a session: 0, or a branch's fork point + 1. */
export function firstSeqOf(header: HeaderLine): number {
  const branch = header.session.branch
  return branch === undefined ? 0 : branch.forkSeq + 1
}

/** A session being read: its lines so far, and what its lines may refer to. */
class Block {
  readonly parsed: Parsed
  private readonly summaryIds = new Set<number>()
  private readonly trackingIds = new ExportTrackingIds()
  private readonly first: number
  private readonly end: number

  constructor(header: HeaderLine, line: number) {
    this.parsed = {
      header,
      headerLine: line,
      messages: [],
      toolCalls: [],
      pinEvents: [],
      edits: [],
      summaries: [],
      evictions: [],
      branchRows: [],
      lineOf: new Map(),
    }
    this.first = firstSeqOf(header)
    this.end = this.first + header.counts.messages
  }

  /** One line of the session, checked against those before it. */
  add(line: ReturnType<typeof bodyLine.parse>, n: number): void {
    const p = this.parsed
    p.lineOf.set(line, n)
    const inRange = (seq: number | null, field: string): void => {
      if (seq !== null && seq >= this.end)
        throw refuse(n, `${field} ${seq} names no message (the session has ${this.end})`)
    }
    switch (line.type) {
      case 'message': {
        const expected = this.first + p.messages.length
        if (line.seq !== expected)
          throw refuse(n, `message seq ${line.seq} out of order (expected ${expected})`)
        inRange(line.seq, 'seq')
        if (line.message === null) throw refuse(n, 'message: a message needs a body')
        this.trackingIds.message(line.trackingId, n)
        p.messages.push(line)
        break
      }
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
        this.summary(line, n)
        break
      case 'eviction':
        // A rewind's row is about the conversation it took back: its seqs are the abandoned branch's.
        if (line.cut !== 'rewind') inRange(line.toSeq, 'toSeq')
        if (line.fromSeq > line.toSeq) throw refuse(n, `fromSeq ${line.fromSeq} is after toSeq ${line.toSeq}`)
        if (line.summary !== null && !this.summaryIds.has(line.summary))
          throw refuse(n, `summary ${line.summary} names no summary of the export before it`)
        p.evictions.push(line)
        break
      case 'branchRow':
        if (this.first === 0)
          throw refuse(n, 'a branch row in a session that is no branch (its header has no branch)')
        if (line.seq >= this.first)
          throw refuse(
            n,
            `branch row seq ${line.seq} is not inherited (the branch forked at ${this.first - 1})`,
          )
        if (p.branchRows.length > 0 && (p.branchRows.at(-1)?.seq ?? -1) >= line.seq)
          throw refuse(n, `branch row seq ${line.seq} out of order`)
        p.branchRows.push(line)
        break
    }
  }

  private summary(line: SummaryLine, n: number): void {
    if (this.summaryIds.has(line.id)) throw refuse(n, `summary id ${line.id} appears twice`)
    for (const [field, ref] of [
      ['replaces', line.replaces],
      ['regenerates', line.regenerates],
    ] as const)
      if (ref !== null && !this.summaryIds.has(ref))
        throw refuse(n, `${field} ${ref} names no earlier summary of the export`)
    if ((line.replacesForkSummary === true || line.regeneratesForkSummary === true) && this.first === 0)
      throw refuse(n, 'a summary of a session that is no branch names a fork summary')
    if (line.message === null) throw refuse(n, 'message: a summary needs a body')
    this.trackingIds.summary(line.trackingId, n)
    this.summaryIds.add(line.id)
    this.parsed.summaries.push(line)
  }

  /** The session's lines are all read: their counts must be the header's. */
  finish(lastLine: number): Parsed {
    const { header, ...p } = this.parsed
    const end = (what: string): CliError =>
      new CliError(
        `the export ends at line ${lastLine} ${what} (a truncated file?); nothing was imported`,
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
      ['branch rows', c.branchRows ?? 0, p.branchRows.length],
    ]
    for (const [what, expected, found] of want)
      if (expected !== found)
        throw end(`with ${count(found)} ${what}, where its header says ${count(expected)}`)
    if (header.session.summary !== null && !this.summaryIds.has(header.session.summary))
      throw end(`without summary ${header.session.summary}, which the session shows`)
    if (header.session.boundary > this.end)
      throw refuse(
        this.parsed.headerLine,
        `session.boundary ${header.session.boundary} is past the last message`,
      )
    return this.parsed
  }
}

/**
 * Reads and checks every line of the input.
 *
 * @param lines - the input's lines
 * @param progress - where the messages read are counted
 * @returns each session of the input, in the order they came
 * @throws CliError `INVALID_EXPORT` naming the line at fault
 */
export async function parseExport(lines: AsyncIterable<string>, progress: Progress): Promise<Parsed[]> {
  const done: Parsed[] = []
  let block: Block | undefined
  let n = 0
  let blank = 0
  let messages = 0
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
    if (block === undefined || (value as { type?: unknown } | null)?.type === 'header') {
      const h = headerLine.safeParse(value)
      if (!h.success)
        throw refuse(n, `not the header of a context-ledger export (${zodProblem(h.error.issues)})`)
      checkRaw(h.data.session, n)
      if (block !== undefined) done.push(block.finish(n - 1))
      block = new Block(h.data, n)
      continue
    }
    const r = bodyLine.safeParse(value)
    if (!r.success) throw refuse(n, zodProblem(r.error.issues))
    checkRaw(r.data, n)
    block.add(r.data, n)
    if (r.data.type === 'message' && ++messages % 1000 === 0) progress.update(messages)
  }
  if (block === undefined)
    throw new CliError(
      'the input is empty: an export starts with its header line; nothing was imported',
      'INVALID_EXPORT',
    )
  done.push(block.finish(n))
  return done
}
