/**
 * Whether a copy can be a fork, and where. A fork is written only when the entries `load` will derive
 * from the shared rows (fork-derive.ts) are exactly the entries of the copy (modulo the fork's uuid rule,
 * for the SDK's `forkSession`); anything else — a copy rule of a later SDK or CLI this adapter does not
 * reproduce — is stored as the copy it is. So a fork never changes what `load` returns.
 *
 * - `planSdkFork`: the SDK's `forkSession` output. The fork point is the last row any copied message
 *   comes from (or `upToMessageId` names); the rows after it are not the fork's.
 * - `planResumeFork`: the first batch the CLI sends for a session it forked on resume: the entries it
 *   wrote first, then a run of the parent's entries under their own uuids, then the new turn.
 */
import { isDeepStrictEqual } from 'node:util'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { isRecord } from '../../store/check-args.js'
import { deriveResumeCopy, deriveSdkCopy, type ViewEntry } from './fork-derive.js'
import type { ResumeForkRecord, SdkForkRecord } from './fork-record.js'
import { isCopiedMessage, settleCopy } from './fork-remap.js'
import type { SdkFork } from './sdk-fork.js'

/** A fork to write. */
export interface ForkPlan<R> {
  /** The last seq of the parent's conversation the fork shares. */
  readonly forkSeq: number
  /** Its record. */
  readonly record: R
  /** The entries its `load` gives right after the fork (what its summary folds). */
  readonly entries: SessionStoreEntry[]
}

/** The uuid an entry answers to besides its own (`source_uuid`, which `upToMessageId` may name). */
function sourceUuidOf(entry: SessionStoreEntry): unknown {
  const attachment: unknown = entry.attachment
  if (isRecord(attachment) && attachment.source_uuid !== undefined) return attachment.source_uuid
  const fold: unknown = entry.fold
  return isRecord(fold) && isRecord(fold.command) ? fold.command.source_uuid : undefined
}

/** The seqs of the rows the copied messages come from, and of those `upTo` names. */
function sharedSeqs(
  given: readonly ViewEntry[],
  sources: readonly string[],
  upTo?: string,
): number[] | undefined {
  const seqOf = new Map<string, number>()
  for (const v of given)
    if (typeof v.entry.uuid === 'string' && v.seq !== undefined && !seqOf.has(v.entry.uuid))
      seqOf.set(v.entry.uuid, v.seq)
  const seqs: number[] = []
  for (const uuid of sources) {
    const seq = seqOf.get(uuid)
    if (seq === undefined) return undefined
    seqs.push(seq)
  }
  if (upTo !== undefined)
    for (const v of given)
      if (v.seq !== undefined && (v.entry.uuid === upTo || sourceUuidOf(v.entry) === upTo)) seqs.push(v.seq)
  return seqs
}

/**
 * The fork the SDK's copy can be.
 *
 * @param parent - the parent's transcript as the SDK was given it
 * @param run - what the SDK's fork wrote
 * @param from - the parent's SDK session id
 * @param upTo - the `upToMessageId` asked
 * @returns the fork, or undefined when the copy must be stored as it is
 */
export async function planSdkFork(
  parent: readonly ViewEntry[],
  run: SdkFork,
  from: string,
  upTo: string | undefined,
): Promise<ForkPlan<SdkForkRecord> | undefined> {
  const first = run.entries.findIndex(isCopiedMessage)
  const last = run.entries.findLastIndex(isCopiedMessage)
  const messages = run.entries.slice(first, last + 1)
  if (first < 0 || !messages.every(isCopiedMessage)) return undefined
  const at = messages.at(-1)?.timestamp
  const given = parent.filter((v) => v.seq !== undefined)
  const seqs = sharedSeqs(
    given,
    messages.map((m) => m.forkedFrom.messageUuid),
    upTo,
  )
  if (typeof at !== 'string' || seqs === undefined || seqs.length === 0) return undefined
  const forkSeq = Math.max(...seqs)
  const record: SdkForkRecord = {
    kind: 'sdk',
    from,
    ...(upTo === undefined ? {} : { upTo }),
    at,
    head: run.entries.slice(0, first),
    tail: run.entries.slice(last + 1),
  }
  const expected = settleCopy(
    messages,
    parent.map((v) => v.entry),
    run.sessionId,
    run.sessionId,
  )
  const shared = given.filter((v) => (v.seq ?? Infinity) <= forkSeq)
  const derived = await deriveSdkCopy(record, shared, run.sessionId)
  if (
    !isDeepStrictEqual(
      derived.map((v) => v.entry),
      expected,
    )
  )
    return undefined
  return { forkSeq, record, entries: [...record.head, ...expected, ...record.tail] }
}

/** What a batch to a new session copies of a parent. */
export interface ResumeForkPlan extends ForkPlan<ResumeForkRecord> {
  /** The batch's entries after the copy, to append to the fork. */
  readonly rest: readonly unknown[]
}

/**
 * The fork a first batch is, when it starts (after entries without uuid) with the CLI's copy of the
 * parent's chain.
 *
 * @param parent - the parent's transcript
 * @param from - the parent's SDK session id
 * @param batch - the batch to the new session
 * @param forkSessionId - the new session's SDK id
 * @returns the fork, or undefined when the batch is no such copy
 */
export function planResumeFork(
  parent: readonly ViewEntry[],
  from: string,
  batch: readonly unknown[],
  forkSessionId: string,
): ResumeForkPlan | undefined {
  const given = parent.filter((v) => v.seq !== undefined)
  const uuids = new Set(given.map((v) => v.entry.uuid))
  const first = batch.findIndex((e) => isRecord(e) && typeof e.uuid === 'string')
  let end = Math.max(first, 0)
  while (end < batch.length) {
    const e = batch[end]
    if (!isRecord(e) || typeof e.uuid !== 'string' || !uuids.has(e.uuid)) break
    end++
  }
  if (first < 0 || end === first) return undefined
  const run = batch.slice(first, end) as SessionStoreEntry[]
  const promptId = run.find((e) => typeof e.promptId === 'string')?.promptId
  const record: ResumeForkRecord = {
    kind: 'resume',
    from,
    leaf: run.at(-1)?.uuid ?? '',
    ...(typeof promptId === 'string' ? { promptId } : {}),
    head: batch.slice(0, first) as SessionStoreEntry[],
  }
  const derived = deriveResumeCopy(record, given, forkSessionId)
  if (
    !isDeepStrictEqual(
      derived.map((v) => v.entry),
      run,
    )
  )
    return undefined
  const forkSeq = Math.max(...derived.map((v) => v.seq ?? -1))
  return { forkSeq, record, entries: [...record.head, ...run], rest: batch.slice(end) }
}
