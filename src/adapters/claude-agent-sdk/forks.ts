/**
 * A `LedgerSessionStore`'s forks: `forkSession` as a ledger fork (one session row, no entry copied), the
 * CLI's fork on resume (`query()` with `resume` and `forkSession: true`) recognised in the first batch it
 * sends and made a ledger fork too, `load` of a fork (fork-view.ts), and what an append to a fork must
 * know: an entry it sends again that the fork already shows through its parent is held, not stored twice.
 */
import { isDeepStrictEqual } from 'node:util'
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { ContextLedgerError, isContextLedgerError } from '../../errors.js'
import { isRecord } from '../../store/check-args.js'
import type { SessionSummary } from '../../store/store-types.js'
import type { ForkRecord } from './fork-record.js'
import { rowOfUuid } from './fork-lookup.js'
import { planResumeFork, planSdkFork } from './fork-plan.js'
import { branchOf, memoSource, transcriptView, type ViewSource } from './fork-view.js'
import type { ViewEntry } from './fork-derive.js'
import { checkKey, type CheckedKey } from './keys.js'
import { runSdkFork, type SdkForkOptions } from './sdk-fork.js'
import { SIDECAR_KEY } from './sidecar.js'
import type { StoreCalls } from './store-calls.js'
import type { Transcript, Transcripts } from './transcripts.js'

/** Transcripts loaded lately per project: the parents a resume's fork may copy. */
const RECENT_MAX = 16

/** A batch cut down, with each entry's place in the batch as it was sent. */
export interface Kept {
  /** The entries to append. */
  readonly entries: readonly unknown[]
  /** `indexOf[i]`: the place of `entries[i]` in the batch sent. */
  readonly indexOf: readonly number[]
}

/** A new fork's metadata: the parent's other keys, and the sidecar with the key, summary and record. */
function forkMetadata(
  parent: SessionSummary | undefined,
  key: CheckedKey,
  record: ForkRecord,
  entries: SessionStoreEntry[],
): unknown {
  const others = isRecord(parent?.metadata) ? Object.entries(parent.metadata) : []
  const rest = Object.fromEntries(others.filter(([name]) => name !== SIDECAR_KEY))
  const summary = foldSessionSummary(undefined, { ...key }, entries, { mtime: Math.floor(Date.now()) })
  return { ...rest, [SIDECAR_KEY]: { ...key, summary, fork: record } }
}

/** Each `LedgerSessionStore`'s forks, for `forkSession` (which takes the store as the SDK's does). */
const registry = new WeakMap<object, Forks>()

/**
 * Records a store's forks.
 *
 * @param store - the `LedgerSessionStore`
 * @param forks - its forks
 */
export function registerForks(store: object, forks: Forks): void {
  registry.set(store, forks)
}

/**
 * A store's forks.
 *
 * @param store - any `sessionStore`
 * @returns its forks when it is a `LedgerSessionStore`, else undefined
 */
export function forksOf(store: unknown): Forks | undefined {
  return typeof store === 'object' && store !== null ? registry.get(store) : undefined
}

/** A store's forks. */
export class Forks {
  /** What views and lookups read. */
  readonly source: ViewSource
  private readonly recent = new Map<string, string[]>()

  /**
   * @param transcripts - the store's transcripts
   * @param calls - its store-wide calls
   * @param appendCopy - appends a transcript the ordinary way (a copy that cannot be a fork)
   */
  constructor(
    private readonly transcripts: Transcripts,
    private readonly calls: StoreCalls,
    private readonly appendCopy: (key: CheckedKey, entries: SessionStoreEntry[]) => Promise<void>,
  ) {
    this.source = { session: (id) => calls.session(id), port: (id) => transcripts.portOf(id) }
  }

  /**
   * A transcript's entries as `load` gives them.
   *
   * @param transcript - the key's transcript (it exists)
   * @returns its entries
   */
  async entries(transcript: Transcript): Promise<SessionStoreEntry[]> {
    const view = await transcriptView(this.source, transcript.id)
    if (transcript.key.subpath === undefined && view.length > 0) this.noteLoad(transcript.key)
    return view.map((v) => v.entry)
  }

  /**
   * `forkSession` on the ledger: the SDK's fork run over the parent's transcript, written as a ledger
   * fork when `load` can give exactly its entries from the shared rows (uuids by the fork's rule), else
   * appended as the copy the SDK made.
   *
   * @param sessionId - the parent's SDK session id
   * @param options - `upToMessageId`, `title`, `dir`
   * @returns the new session's id
   * @throws ContextLedgerError what `runSdkFork` throws; `SESSION_EXISTS` never (the SDK mints the id)
   */
  async fork(sessionId: string, options: SdkForkOptions): Promise<{ sessionId: string }> {
    let parent: { transcript: Transcript; view: ViewEntry[] } | undefined
    const run = await runSdkFork(sessionId, options, async (key) => {
      const transcript = this.transcripts.of(checkKey(key))
      if (!(await this.transcripts.exists(transcript))) return null
      const view = await transcriptView(this.source, transcript.id)
      parent = { transcript, view }
      return view.length === 0 ? null : view.map((v) => v.entry)
    })
    const key = checkKey({ projectKey: run.source.projectKey, sessionId: run.sessionId })
    const plan =
      parent === undefined ? undefined : await planSdkFork(parent.view, run, sessionId, options.upToMessageId)
    if (parent === undefined || plan === undefined) {
      await this.appendCopy(key, run.entries)
      return { sessionId: run.sessionId }
    }
    const upTo = options.upToMessageId === undefined ? '' : ` up to message ${options.upToMessageId}`
    await this.calls.fork(parent.transcript.id, {
      atSeq: plan.forkSeq,
      newSessionId: this.transcripts.idOf(key),
      reason: `Claude Agent SDK forkSession of ${sessionId}${upTo}`,
      metadata: forkMetadata(await this.calls.session(parent.transcript.id), key, plan.record, plan.entries),
    })
    return { sessionId: run.sessionId }
  }

  /**
   * The first batch to a new transcript, made a fork when it is the CLI's copy of a transcript this
   * store loaded lately (a resume with `forkSession: true`).
   *
   * @param transcript - the new transcript (it does not exist)
   * @param batch - the batch
   * @returns the rest of the batch to append (the fork is written), or undefined when it is no such copy
   */
  async resumeFork(transcript: Transcript, batch: readonly unknown[]): Promise<Kept | undefined> {
    const { key } = transcript
    const first = batch.find((e) => isRecord(e) && typeof e.uuid === 'string') as { uuid: string } | undefined
    if (key.subpath !== undefined || first === undefined) return undefined
    for (const from of this.recent.get(key.projectKey) ?? []) {
      if (from === key.sessionId) continue
      const parent = this.transcripts.of({ projectKey: key.projectKey, sessionId: from })
      if ((await rowOfUuid(this.source, parent.id, first.uuid)) === undefined) continue
      const plan = planResumeFork(await transcriptView(this.source, parent.id), from, batch, key.sessionId)
      if (plan === undefined) continue
      try {
        await this.calls.fork(parent.id, {
          atSeq: plan.forkSeq,
          newSessionId: transcript.id,
          reason: `Claude Agent SDK query() resuming ${from} with forkSession`,
          metadata: forkMetadata(await this.calls.session(parent.id), key, plan.record, plan.entries),
        })
      } catch (error) {
        // Another writer made the session first: append to it as to any.
        if (isContextLedgerError(error, 'SESSION_EXISTS')) return undefined
        throw error
      }
      const offset = batch.length - plan.rest.length
      return { entries: plan.rest, indexOf: plan.rest.map((_, i) => offset + i) }
    }
    return undefined
  }

  /**
   * A batch to a fork without the entries the fork already shows through its parent (an entry sent
   * again: a retried batch, an `importSessionToStore` replay).
   *
   * @param transcript - the transcript (it exists)
   * @param kept - the batch
   * @returns the entries to append
   * @throws ContextLedgerError `DUPLICATE_MESSAGE` at `[i].uuid` for an entry under the uuid of an
   *   inherited entry, with other content
   */
  async held(transcript: Transcript, kept: Kept): Promise<Kept> {
    if (transcript.root === true) return kept
    const summary = await this.calls.session(transcript.id)
    if (summary === undefined) return kept
    const { parentId, forkSeq } = branchOf(summary)
    if (parentId === null || forkSeq === null) return kept
    const inherited = new Set<number>()
    const source = memoSource(this.source)
    for (const [i, entry] of kept.entries.entries()) {
      if (!isRecord(entry) || typeof entry.uuid !== 'string' || entry.uuid === '') continue
      // A row it shares under this uuid (which the ledger would take the entry for), or the row a shared
      // entry of its view comes from.
      const hit = await transcript.port.byTrackingId(entry.uuid)
      const row = hit ?? (await rowOfUuid(source, transcript.id, entry.uuid))
      if (row !== undefined && row.seq <= forkSeq) inherited.add(i)
    }
    if (inherited.size === 0) return kept
    const shown = new Map<unknown, SessionStoreEntry>()
    for (const { entry } of await transcriptView(this.source, transcript.id))
      if (!shown.has(entry.uuid)) shown.set(entry.uuid, entry)
    for (const i of inherited) {
      const entry = kept.entries[i] as SessionStoreEntry
      if (!isDeepStrictEqual(shown.get(entry.uuid), entry)) {
        const path = `[${kept.indexOf[i] ?? i}].uuid`
        throw new ContextLedgerError(
          'DUPLICATE_MESSAGE',
          `Entry ${path} reuses the uuid ${JSON.stringify(entry.uuid)} of an entry the fork "${transcript.id}" shares with its parent, with other content; nothing was written`,
          { path, sessionId: transcript.id },
        )
      }
    }
    const keep = kept.entries.flatMap((_, i) => (inherited.has(i) ? [] : [i]))
    return { entries: keep.map((i) => kept.entries[i]), indexOf: keep.map((i) => kept.indexOf[i] ?? i) }
  }

  private noteLoad(key: CheckedKey): void {
    const list = (this.recent.get(key.projectKey) ?? []).filter((id) => id !== key.sessionId)
    list.unshift(key.sessionId)
    this.recent.delete(key.projectKey)
    this.recent.set(key.projectKey, list.slice(0, RECENT_MAX))
    for (const project of this.recent.keys()) {
      if (this.recent.size <= RECENT_MAX) break
      this.recent.delete(project)
    }
  }
}
