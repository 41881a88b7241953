/**
 * What `append` validates, checked on what the ledger holds: each archived body and window form, each
 * summary and each edit passes the validator `append` runs (`snapshotMessage`, `src/messages/schema.ts`)
 * — so `window()` never returns a message a converter or a provider refuses — and each `repeatOf` points
 * back to an earlier message that is not itself a repeat (a message sent again records the first
 * occurrence). A problem names the seq (or the summary) and the validator's path, prefixed with the
 * field that holds the body (`message.content[0].text`, `windowMessage.…`).
 *
 * Bodies are validated with the widest limits a store can be opened with (`MESSAGE_LIMIT_BOUNDS`), so a
 * ledger written under raised limits is not refused for them. Beside the rules, {@link MessageRules}
 * keeps what the log rules need of the bodies (`log-rows.ts`, `tool-links.ts`): each call's tool name,
 * each result's status, and which bodies carry the pin flag.
 */
import { ContextLedgerError } from '../errors.js'
import { hasPinFlag } from '../messages/pin-flag.js'
import { MESSAGE_LIMIT_BOUNDS, snapshotMessage, type MessageLimits } from '../messages/schema.js'
import type { StoredMessageData } from '../messages/types.js'
import type { LedgerEntry } from '../store/store-types.js'
import type { SummaryRecord } from '../store/summaries.js'
import { isSummaryMessage } from '../summaries/summary-message.js'
import { Offenders, type Fail } from './problems.js'
import { forgedNote, prunedWindowProblem, windowMetadataProblem } from './reserved-note-rules.js'
import { standIn } from './stand-in.js'
import { factsOf, formatBodyProblem, skeletonOf } from './skeleton.js'
import type { BodyFormat } from '../formats/index.js'
import { strandsFormat } from '../formats/strands/index.js'

/** The widest limits a store accepts: what any store could have appended passes. */
const WIDEST: Readonly<MessageLimits> = Object.freeze({
  maxDepth: MESSAGE_LIMIT_BOUNDS.maxDepth[1],
  maxStringLength: MESSAGE_LIMIT_BOUNDS.maxStringLength[1],
})

/** Why `append` would refuse a body: the path of the first bad field and the reason. */
export interface BodyProblem {
  /** The field, e.g. `content[0].text` (`''` for the message itself). */
  readonly path: string
  /** The validator's reason. */
  readonly reason: string
}

/**
 * Runs the append validator on a stored body.
 *
 * @param body - the parsed body
 * @returns why it would be refused, or undefined when it passes
 */
export function bodyProblem(body: unknown, format: BodyFormat = strandsFormat): BodyProblem | undefined {
  if (format !== strandsFormat) return formatBodyProblem(format, body, WIDEST)
  try {
    snapshotMessage(body, WIDEST)
    return undefined
  } catch (error) {
    if (!(error instanceof ContextLedgerError)) throw error
    const path = error.path === undefined || error.path === '(message)' ? '' : error.path
    // The validator's message opens with "Invalid message at <path>: ".
    const reason = error.message.replace(/^Invalid message at [^:]*: /, '')
    return { path, reason }
  }
}

/**
 * A body's field for a problem: `message.content[0].text`, or `message` for the body itself.
 *
 * @param holder - the field holding the body (`message`, `windowMessage`)
 * @param p - the validator's problem
 * @returns the path
 */
export function fieldOf(holder: string, p: BodyProblem): string {
  return p.path === '' ? holder : `${holder}.${p.path}`
}

/**
 * A message the rules can walk: itself when the validator accepts it, else what can be read of it
 * (`stand-in.ts`; the problem itself is reported where the body is checked).
 *
 * @param message - a message the store returned (a window's, a summary's)
 * @returns it, or its stand-in
 */
export function readable(message: StoredMessageData): StoredMessageData {
  return bodyProblem(message) === undefined ? message : standIn(message, '')
}

/** A key for one tool id of one message. */
export const toolKey = (seq: number, id: string): string => `${seq}\u0000${id}`

/** What the log rules need of the archive's bodies. */
export interface BodyFacts {
  /** The tool name of each call: `toolKey(seq, toolUseId)` → name. */
  readonly toolNames: ReadonlyMap<string, string>
  /** The status of each result: `toolKey(seq, toolUseId)` → status. */
  readonly resultStatus: ReadonlyMap<string, string>
  /** The seqs whose body carries the pin flag (`metadata.custom.pinned === true`). */
  readonly pinFlagged: readonly number[]
  /** The session's message format: what its bodies and edits are validated as. */
  readonly format: BodyFormat
}

/** The archive's bodies, one at a time, in seq order; then {@link report}. */
export class MessageRules {
  private readonly bodies = new Offenders('message body', 'a body append would refuse')
  private readonly notes = new Offenders(
    'reserved note',
    'a note only the library writes, not as it writes it',
  )
  private readonly repeats = new Offenders('repeat of', 'a repeatOf that names no earlier first occurrence')
  /** The seqs that are repeats (a repeat's repeatOf names the first occurrence, never another repeat). */
  private readonly repeated = new Set<number>()
  private readonly toolNames = new Map<string, string>()
  private readonly resultStatus = new Map<string, string>()
  private readonly pinFlagged: number[] = []

  /**
   * @param format - the session's message format (another than Strands is read through its facts:
   *   `skeleton.ts`)
   */
  constructor(private readonly format: BodyFormat = strandsFormat) {}

  /**
   * One archived message.
   *
   * @param e - its entry, as `history()` returns it
   * @returns the entry the other rules read: `e`, or with a body the validator refuses, what can be read
   *   of it (`stand-in.ts`)
   */
  entry(e: LedgerEntry): LedgerEntry {
    if (this.format !== strandsFormat) return this.formatEntry(e)
    const seq = e.seq
    let read = e
    for (const [holder, body] of [
      ['message', e.message],
      ['windowMessage', e.windowMessage],
    ] as const) {
      if (body === undefined) continue
      const p = bodyProblem(body)
      if (p === undefined) continue
      this.bodies.add({ seq, field: fieldOf(holder, p) }, `seq ${seq} ${fieldOf(holder, p)}: ${p.reason}`)
      if (holder === 'message') read = { ...e, message: standIn(body, e.trackingId) }
    }
    if (read === e) this.reservedNotes(e)
    if (e.repeatOf !== undefined) {
      const r = e.repeatOf
      if (r >= seq)
        this.repeats.add({ seq, field: 'repeatOf' }, `seq ${seq} repeats seq ${r}, which is not earlier`)
      else if (this.repeated.has(r))
        this.repeats.add(
          { seq, field: 'repeatOf' },
          `seq ${seq} repeats seq ${r}, itself a repeat (a repeat names the first occurrence)`,
        )
      this.repeated.add(seq)
    }
    for (const block of read.message.content) {
      if ('toolUse' in block) this.toolNames.set(toolKey(seq, block.toolUse.toolUseId), block.toolUse.name)
      else if ('toolResult' in block)
        this.resultStatus.set(toolKey(seq, block.toolResult.toolUseId), block.toolResult.status)
    }
    if (hasPinFlag(read.message)) this.pinFlagged.push(seq)
    return read
  }

  /** {@link entry} for a session of another format: its bodies validated as that format, read as skeletons. */
  private formatEntry(e: LedgerEntry): LedgerEntry {
    const f = this.format
    for (const [holder, body] of [
      ['message', e.message],
      ['windowMessage', e.windowMessage],
    ] as const) {
      if (body === undefined) continue
      const p = bodyProblem(body, f)
      if (p !== undefined)
        this.bodies.add(
          { seq: e.seq, field: fieldOf(holder, p) },
          `seq ${e.seq} ${fieldOf(holder, p)}: ${p.reason}`,
        )
    }
    const read: LedgerEntry = {
      ...e,
      message: skeletonOf(f, e.message, e.trackingId),
      windowMessage: e.windowMessage === undefined ? undefined : skeletonOf(f, e.windowMessage, e.trackingId),
    }
    const facts = factsOf(f, e.message)
    for (const u of facts?.toolUses ?? []) this.toolNames.set(toolKey(e.seq, u.id), u.name)
    for (const r of facts?.toolResults ?? []) this.resultStatus.set(toolKey(e.seq, r.id), r.status)
    return read
  }

  /** The reserved notes of a body the validator accepts, and its window form's metadata. */
  private reservedNotes(e: LedgerEntry): void {
    const forged = forgedNote(e.message)
    if (forged !== undefined)
      this.notes.add({ seq: e.seq, field: 'message.metadata.custom.contextLedger' }, `seq ${e.seq} ${forged}`)
    if (e.windowMessage === undefined || bodyProblem(e.windowMessage) !== undefined) return
    const shown = windowMetadataProblem(e.message, e.windowMessage) ?? prunedWindowProblem(e)
    if (shown !== undefined)
      this.notes.add({ seq: e.seq, field: 'windowMessage.metadata' }, `seq ${e.seq}: ${shown}`)
  }

  /**
   * Reports what was found.
   *
   * @param fail - records a problem
   * @returns what the log rules need of the bodies
   */
  report(fail: Fail): BodyFacts {
    this.bodies.report(fail)
    this.notes.report(fail)
    this.repeats.report(fail)
    return {
      toolNames: this.toolNames,
      resultStatus: this.resultStatus,
      pinFlagged: this.pinFlagged,
      format: this.format,
    }
  }
}

/**
 * Every summary's body against the append validator, and what a summary is besides: a user message of
 * text carrying the ledger's marker (`summary-message.ts`).
 *
 * @param summaries - the session's summaries
 * @param fail - records a problem
 * @param format - the session's message format
 */
export function checkSummaryBodies(
  summaries: readonly SummaryRecord[],
  fail: Fail,
  format: BodyFormat = strandsFormat,
): void {
  const bad = new Offenders('summary body', 'a summary append would refuse')
  for (const s of [...summaries].sort((a, b) => a.id - b.id)) {
    const p = bodyProblem(s.message, format)
    if (p !== undefined)
      bad.add(
        { summaryId: s.id, field: fieldOf('message', p) },
        `summary ${s.id} ${fieldOf('message', p)}: ${p.reason}`,
      )
    else if (format !== strandsFormat) {
      if (format.notesOf(s.message)?.summary !== true)
        bad.add({ summaryId: s.id, field: 'message' }, `summary ${s.id} lacks the ledger's summary note`)
    } else if (s.message.role !== 'user')
      bad.add({ summaryId: s.id, field: 'message.role' }, `summary ${s.id} is an ${s.message.role} message`)
    else if (!isSummaryMessage(s.message))
      bad.add({ summaryId: s.id, field: 'message.metadata' }, `summary ${s.id} lacks the ledger's marker`)
    else {
      const at = s.message.content.findIndex((b) => !('text' in b))
      if (at >= 0)
        bad.add(
          { summaryId: s.id, field: `message.content[${at}]` },
          `summary ${s.id} message.content[${at}] is not text`,
        )
    }
  }
  bad.report(fail)
}
