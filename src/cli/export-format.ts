/**
 * The export format (`context-ledger export` / `import`), version 1: JSON lines, one object per line —
 * a header, then the session's messages in seq order, its tool calls, pin events, edits, summaries and
 * eviction log rows, each in the order the ledger recorded them (an export made before the eviction log
 * has no eviction lines and no `counts.evictions`; it imports with an empty log). Every column of every row of the session is there (only
 * the surrogate keys are left out, and summary ids are kept to link summaries to each other and to the
 * session), so an import restores the session exactly. docs/cli.md documents every field.
 *
 * A JSON text column (a message body, a window form, limits, a summary's ranges …) is written as the JSON
 * value it holds when writing that value again gives back the stored text byte for byte (always, for what
 * the store writes); otherwise as the stored text itself, and the line's `raw` lists that field. So the
 * round trip is byte-identical either way.
 *
 * The header's `session.format` names the session's message format (`src/formats/`). It is written only
 * for a session of another format than `'strands'`: a header without it means `'strands'`, so a Strands
 * session's export reads as it did before formats existed (and an older context-ledger, which refuses a
 * field it does not know, refuses an export of a format it could not store).
 */
import { z } from 'zod'
import { MESSAGE_FORMATS } from '../formats/types.js'

/** `format` of the header line. */
export const EXPORT_FORMAT = 'context-ledger-export'

/** `version` of the header line: the version of this format. */
export const EXPORT_VERSION = 1

/**
 * A JSON text column as a line field: the JSON value when writing it again reproduces the text exactly,
 * else the text (and the field goes in `raw`).
 *
 * @param text - the column's text (null stays null)
 * @returns the value, and whether it is the raw text
 */
export function jsonField(text: string | null): { value: unknown; raw: boolean } {
  if (text === null) return { value: null, raw: false }
  try {
    const value: unknown = JSON.parse(text)
    if (value !== null && JSON.stringify(value) === text) return { value, raw: false }
  } catch {
    // Not JSON: kept as text.
  }
  return { value: text, raw: true }
}

/**
 * A line field back to its column's text.
 *
 * @param value - the field's value
 * @param raw - whether the line lists it in `raw`
 * @returns the column's text, or null
 */
export function columnText(value: unknown, raw: boolean): string | null {
  if (value === null || value === undefined) return null
  if (raw) {
    if (typeof value !== 'string') throw new Error('a field listed in raw must be a string')
    return value
  }
  return JSON.stringify(value)
}

const int = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)
const count = int.min(0)
const nullableCount = count.nullable()
const text = z.string()
const json = z.unknown()
/** A time in milliseconds since the epoch that a JavaScript `Date` can hold (the store reads every time as one). */
const time = count.max(8.64e15)
const raw = <T extends string>(fields: readonly [T, ...T[]]) => z.array(z.enum(fields)).optional()

const summaryEnd = z.enum(['replaced', 'regenerated', 'dropped', 'evicted'])

/**
 * A branch's place in its tree (docs/design.md, "Branches"): every column of its session row that a
 * root leaves null. Its parent is named by id: an import finds it in the same input or in the file.
 */
export const branchHeader = z.strictObject({
  /** The parent session's id. */
  parent: text.min(1),
  forkSeq: count,
  kind: z.enum(['fork', 'abandoned']),
  forkedAt: time,
  actor: text.nullable(),
  reason: text.nullable(),
  forkVersion: count,
  forkTokens: count,
  forkTrimPoint: z.boolean(),
  forkPairStart: z.boolean(),
  /** The ancestor's summary the branch's window showed at the fork, by its session and trackingId. */
  forkSummary: z.strictObject({ sessionId: text.min(1), trackingId: text }).nullable(),
  forkSummaryEndedAt: time.nullable(),
  forkSummaryEndReason: summaryEnd.nullable(),
  /** Whether the window shows that summary now (then `session.summary` is null). */
  showsForkSummary: z.boolean(),
})

/** The header line. */
export const headerLine = z.strictObject({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  schemaVersion: count,
  exportedAt: text,
  session: z.strictObject({
    id: text.min(1),
    createdAt: time,
    updatedAt: time,
    metadata: json,
    boundary: count,
    version: count,
    keptCount: nullableCount,
    keptTokens: nullableCount,
    keptFirst: nullableCount,
    summary: count.nullable(),
    limits: json,
    /** The session's message format; absent: `'strands'`. */
    format: z.enum(MESSAGE_FORMATS).optional(),
    /** For a branch: its parent, fork point and the rest of its fork; absent for a root. */
    branch: branchHeader.optional(),
    raw: raw(['metadata', 'limits']),
  }),
  counts: z.strictObject({
    messages: count,
    toolCalls: count,
    pinEvents: count,
    edits: count,
    summaries: count,
    evictions: count.optional(),
    branchRows: count.optional(),
  }),
})

/** A message line. */
export const messageLine = z.strictObject({
  type: z.literal('message'),
  seq: count,
  trackingId: text,
  role: z.enum(['user', 'assistant']),
  message: json,
  tokens: count,
  cumTokens: count,
  pinned: z.boolean(),
  kept: z.boolean(),
  recheck: z.boolean(),
  plainUser: z.boolean(),
  trimPoint: z.boolean(),
  pairStart: z.boolean(),
  hasToolUse: z.boolean(),
  hasToolResult: z.boolean(),
  createdAt: time,
  windowMessage: json,
  windowTokens: nullableCount,
  repeatOf: nullableCount,
  late: z.boolean(),
  raw: raw(['message', 'windowMessage']),
})

/** A tool call line. */
export const toolCallLine = z.strictObject({
  type: z.literal('toolCall'),
  toolUseId: text,
  name: text,
  useSeq: count,
  resultSeq: nullableCount,
  status: z.enum(['success', 'error']).nullable(),
})

/** A pin event line. */
export const pinEventLine = z.strictObject({
  type: z.literal('pinEvent'),
  seq: count,
  action: z.enum(['pin', 'unpin']),
  actor: text,
  reason: text.nullable(),
  at: time,
  /** The session's version when it was written (absent or null: before versions were recorded). */
  version: nullableCount.optional(),
})

/** An edit line. */
export const editLine = z.strictObject({
  type: z.literal('edit'),
  seq: count,
  kind: z.enum(['edit', 'redact']),
  actor: text,
  reason: text.nullable(),
  at: time,
  message: json,
  /** The session's version when it was written (absent or null: before versions were recorded). */
  version: nullableCount.optional(),
  raw: raw(['message']),
})

/** A branch row: a branch's own window state on a row it inherits (its owner is the lineage's). */
export const branchRowLine = z.strictObject({
  type: z.literal('branchRow'),
  seq: count,
  pinned: z.boolean(),
  kept: z.boolean(),
  recheck: z.boolean(),
  windowMessage: json,
  windowTokens: nullableCount,
  raw: raw(['windowMessage']),
})

/** A summary line. */
export const summaryLine = z
  .strictObject({
    type: z.literal('summary'),
    id: count.min(1),
    trackingId: text,
    replaces: count.nullable(),
    regenerates: count.nullable(),
    fromBoundary: count,
    toBoundary: count,
    seqs: json,
    messageCount: count,
    message: json,
    tokens: count,
    model: text.nullable(),
    promptHash: text,
    createdAt: time,
    endedAt: time.nullable(),
    endReason: summaryEnd.nullable(),
    /** A branch's summary that folded (or regenerated) the summary it inherited: `replaces` (`regenerates`) is null. */
    replacesForkSummary: z.literal(true).optional(),
    regeneratesForkSummary: z.literal(true).optional(),
    raw: raw(['seqs', 'message']),
  })
  .superRefine((line, ctx) => {
    // Given as JSON (not raw), the seqs a summary stands for are a list of [from, to) ranges; whether they
    // are in order and in the archive is the checker's to say.
    if (line.raw?.includes('seqs') !== true && !isRangeList(line.seqs))
      ctx.addIssue({
        code: 'custom',
        path: ['seqs'],
        message: 'expected an array of [from, to] seq ranges (whole numbers from 0)',
      })
  })

function isRangeList(value: unknown): boolean {
  const seq = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0
  return Array.isArray(value) && value.every((r) => Array.isArray(r) && r.length === 2 && r.every(seq))
}

/** An eviction log line: a run of seqs `fromSeq`…`toSeq` (inclusive) one cut took out of the window. */
export const evictionLine = z.strictObject({
  type: z.literal('eviction'),
  fromSeq: count,
  toSeq: count,
  version: count,
  at: time,
  cut: text,
  reason: text,
  /** The summary a fold went into: its id in the export. */
  summary: count.min(1).nullable(),
  /** For a rewind's row: the abandoned branch's session id (null once it was deleted). */
  abandoned: text.nullable().optional(),
  /** The ledger's log clock when it was written (absent or null: before branches). */
  clock: nullableCount.optional(),
})

/** Any line but the header. */
export const bodyLine = z.discriminatedUnion('type', [
  messageLine,
  toolCallLine,
  pinEventLine,
  editLine,
  summaryLine,
  evictionLine,
  branchRowLine,
])

/** The header. */
export type HeaderLine = z.infer<typeof headerLine>
/** A message. */
export type MessageLine = z.infer<typeof messageLine>
/** A tool call. */
export type ToolCallLine = z.infer<typeof toolCallLine>
/** A pin event. */
export type PinEventLine = z.infer<typeof pinEventLine>
/** An edit. */
export type EditLine = z.infer<typeof editLine>
/** A summary. */
export type SummaryLine = z.infer<typeof summaryLine>
/** An eviction log row. */
export type EvictionLine = z.infer<typeof evictionLine>
/** A branch row. */
export type BranchRowLine = z.infer<typeof branchRowLine>
/** A branch's fork, in the header. */
export type BranchHeader = z.infer<typeof branchHeader>
/** Any line but the header. */
export type BodyLine = z.infer<typeof bodyLine>
