/**
 * What a fork keeps in its sidecar (`metadata.claudeAgent.fork`) so that `load` can give the entries a
 * copy would have held, from the rows it shares with its parent: O(1) in the parent's length — the
 * fork's own few entries that are not copies, and what the copy rule needs.
 *
 * - `sdk`: made by this adapter's `forkSession`. The messages are the SDK's copy of the parent's
 *   transcript up to the fork point, its uuids by the fork rule (fork-ids.ts, fork-remap.ts); `head` and
 *   `tail` are the SDK fork's entries before and after them (a title, the parent's content replacements…),
 *   `at` the time the SDK gave the last copied message, `upTo` the `upToMessageId` asked.
 * - `resume`: the CLI's own copy, made by `query()` with `resume` and `forkSession: true`: the parent's
 *   chain up to `leaf`, each entry with the fork's session id (and the fork's `promptId` on a prompt, the
 *   parent's session as an answer's `requestSessionId`, as the CLI writes them); `head` the entries the
 *   CLI wrote before its copy.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { isRecord } from '../../store/check-args.js'

/** A fork made by `forkSession`. */
export interface SdkForkRecord {
  readonly kind: 'sdk'
  /** The parent's SDK session id. */
  readonly from: string
  /** The `upToMessageId` asked (none: the whole transcript). */
  readonly upTo?: string
  /** The timestamp the SDK gave the last copied message (the time of the fork). */
  readonly at: string
  /** The SDK fork's entries before its messages. */
  readonly head: SessionStoreEntry[]
  /** Its entries after them. */
  readonly tail: SessionStoreEntry[]
}

/** A fork the CLI made by resuming with `forkSession: true`. */
export interface ResumeForkRecord {
  readonly kind: 'resume'
  /** The parent's SDK session id. */
  readonly from: string
  /** The uuid of the last entry copied (the parent's, which the CLI kept). */
  readonly leaf: string
  /** The `promptId` the CLI gave the copied entries that have one. */
  readonly promptId?: string
  /** The entries the CLI wrote before its copy. */
  readonly head: SessionStoreEntry[]
}

/** A fork's record. */
export type ForkRecord = SdkForkRecord | ResumeForkRecord

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0

const isEntries = (v: unknown): v is SessionStoreEntry[] =>
  Array.isArray(v) && v.every((e) => isRecord(e) && typeof e.type === 'string')

/**
 * A fork's record from its sidecar.
 *
 * @param value - `metadata.claudeAgent.fork` (anything)
 * @returns the record, or undefined when there is none or it is not one
 */
export function readForkRecord(value: unknown): ForkRecord | undefined {
  if (!isRecord(value) || !isText(value.from) || !isEntries(value.head)) return undefined
  if (value.upTo !== undefined && !isText(value.upTo)) return undefined
  if (value.kind === 'sdk')
    return isText(value.at) && isEntries(value.tail) ? (value as unknown as SdkForkRecord) : undefined
  if (value.kind !== 'resume' || !isText(value.leaf)) return undefined
  return value.promptId === undefined || isText(value.promptId)
    ? (value as unknown as ResumeForkRecord)
    : undefined
}
