/**
 * A fork's inherited entries, derived from its parent's transcript up to the fork point — never stored:
 *
 * - a `forkSession` fork (`sdk`): the SDK's own fork run again over the parent's entries (sdk-fork.ts),
 *   its random ids replaced by the fork's rule (fork-remap.ts), the last message stamped with the time of
 *   the fork;
 * - a fork the CLI made by resuming with `forkSession: true` (`resume`): the parent's chain ending at the
 *   last entry the CLI copied, each entry as the CLI copies it (the fork's session id, its `promptId`, and
 *   the parent's session as an answer's `requestSessionId`).
 *
 * Each derived entry keeps the seq of the parent's row it comes from, so a fork of the fork knows how far
 * into the shared rows it reaches.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { isRecord } from '../../store/check-args.js'
import type { ResumeForkRecord, SdkForkRecord, ForkRecord } from './fork-record.js'
import { isCopiedMessage, settleCopy } from './fork-remap.js'
import { runSdkFork } from './sdk-fork.js'

/** An entry of a transcript as `load` gives it, with the seq of the row it comes from. */
export interface ViewEntry {
  /** The entry. */
  readonly entry: SessionStoreEntry
  /** The seq, in the session's conversation, of the row it comes from; undefined for a fork's own
   * entries kept in its sidecar (`head`, `tail`), which no row holds. */
  readonly seq: number | undefined
}

/** The first entry of each uuid, with its seq. */
function byUuid(given: readonly ViewEntry[]): Map<string, ViewEntry> {
  const map = new Map<string, ViewEntry>()
  for (const v of given)
    if (typeof v.entry.uuid === 'string' && !map.has(v.entry.uuid)) map.set(v.entry.uuid, v)
  return map
}

/**
 * The messages of the SDK's copy, settled by the fork's rule.
 *
 * @param record - the fork's record
 * @param given - the parent's entries up to the fork point
 * @param forkSessionId - the fork's SDK session id
 * @returns the messages, each with the seq of its source (undefined when the SDK named a source it was
 *   not given: never, but then the fork cannot be shared and `fork` writes a copy)
 */
export async function deriveSdkCopy(
  record: Pick<SdkForkRecord, 'from' | 'upTo' | 'at'>,
  given: readonly ViewEntry[],
  forkSessionId: string,
): Promise<ViewEntry[]> {
  const entries = given.map((v) => v.entry)
  const run = await runSdkFork(
    record.from,
    record.upTo === undefined ? {} : { upToMessageId: record.upTo },
    () => Promise.resolve(entries),
  )
  const messages = run.entries.filter(isCopiedMessage)
  const settled = settleCopy(messages, entries, run.sessionId, forkSessionId)
  const last = settled.at(-1)
  if (last !== undefined) settled[settled.length - 1] = { ...last, timestamp: record.at }
  const sources = byUuid(given)
  return settled.map((entry, i) => ({
    entry,
    seq: sources.get(messages[i]?.forkedFrom.messageUuid ?? '')?.seq,
  }))
}

/** An entry as the CLI copies it into a fork it makes on resume. */
function resumeCopy(
  entry: SessionStoreEntry,
  record: ResumeForkRecord,
  forkSessionId: string,
): SessionStoreEntry {
  const copy: Record<string, unknown> = { ...entry, sessionId: forkSessionId }
  if ('promptId' in entry && record.promptId !== undefined) copy.promptId = record.promptId
  if (entry.type === 'assistant' && typeof entry.requestSessionId !== 'string') {
    const from: unknown = entry.forkedFrom
    const fromSession = isRecord(from) && typeof from.sessionId === 'string' ? from.sessionId : undefined
    const session = fromSession ?? entry.sessionId
    if (typeof session === 'string') copy.requestSessionId = session
  }
  return copy as SessionStoreEntry
}

/**
 * The CLI's copy on a resume with `forkSession: true`: the chain ending at `record.leaf`.
 *
 * @param record - the fork's record
 * @param given - the parent's entries up to the fork point
 * @param forkSessionId - the fork's SDK session id
 * @returns the copied entries, oldest first, with their sources' seqs
 */
export function deriveResumeCopy(
  record: ResumeForkRecord,
  given: readonly ViewEntry[],
  forkSessionId: string,
): ViewEntry[] {
  const sources = byUuid(given)
  const chain: ViewEntry[] = []
  const seen = new Set<string>()
  for (let at = sources.get(record.leaf); at !== undefined;) {
    const uuid = at.entry.uuid ?? ''
    if (seen.has(uuid)) break
    seen.add(uuid)
    chain.push(at)
    const parent = at.entry.parentUuid
    at = typeof parent === 'string' ? sources.get(parent) : undefined
  }
  return chain.reverse().map((v) => ({ seq: v.seq, entry: resumeCopy(v.entry, record, forkSessionId) }))
}

/**
 * A fork's inherited entries.
 *
 * @param record - its record
 * @param given - its parent's entries up to its fork point (rows only)
 * @param forkSessionId - its SDK session id
 * @returns them, each with its source's seq
 */
export async function deriveInherited(
  record: ForkRecord,
  given: readonly ViewEntry[],
  forkSessionId: string,
): Promise<ViewEntry[]> {
  return record.kind === 'sdk'
    ? deriveSdkCopy(record, given, forkSessionId)
    : deriveResumeCopy(record, given, forkSessionId)
}
