/**
 * `LedgerSessionStore`: the Claude Agent SDK's `SessionStore` on the ledger. Every transcript entry the
 * CLI mirrors is stored exactly (format `claude-agent`), one ledger session per `(projectKey, sessionId,
 * subpath)`; `load` gives them back in order for a resume; the SDK's session summaries are folded inside
 * each append's transaction; a compaction becomes a ledger summary over the range it replaced, the
 * originals staying searchable. See docs/claude-agent-sdk.md.
 */
import type {
  SessionKey,
  SessionStore,
  SessionStoreEntry,
  SessionSummaryEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { ContextLedgerError } from '../../errors.js'
import { describeValue } from '../../messages/limits.js'
import { invalidOption, isRecord, type PinAttribution } from '../../store/check-args.js'
import { checkDeleteOptions } from '../../store/branches/delete.js'
import type { DeleteSessionOptions } from '../../store/branches/types.js'
import type { ContextStore } from '../../store/context-store.js'
import type { PruneResult } from '../../store/retention-options.js'
import type { PinResult } from '../../store/store-types.js'
import type { AdapterStore } from '../session-options.js'
import { serial, sessionState } from '../session-queue.js'
import { foldCompactions } from './compaction.js'
import { appendHoldingErased, rebased } from './erased.js'
import { rowOfUuid } from './fork-lookup.js'
import { refuseLiveForks, subtreeOf } from './fork-delete.js'
import { Forks, registerForks, type Kept } from './forks.js'
import { checkKey, checkProjectKey, mainOf, type CheckedKey } from './keys.js'
import {
  checkPruneOptions,
  checkStoreOptions,
  type ClaudePruneOptions,
  type LedgerSessionStoreOptions,
} from './options.js'
import { sidecarFold } from './sidecar.js'
import { storeCalls, type StoreCalls } from './store-calls.js'
import { Transcripts, type ListedTranscript, type Transcript } from './transcripts.js'

function checkEntries(entries: unknown): readonly unknown[] {
  if (!Array.isArray(entries))
    throw new ContextLedgerError(
      'INVALID_MESSAGE',
      `Invalid entries: expected an array of transcript entries, got ${describeValue(entries)}`,
      { path: 'entries' },
    )
  return entries
}

/**
 * A `SessionStore` for `query({ prompt, options: { sessionStore } })` on a SQLite or PostgreSQL ledger.
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * const sessionStore = new LedgerSessionStore({ store })
 * for await (const message of query({ prompt: 'Hello', options: { sessionStore } })) console.log(message)
 * ```
 */
export class LedgerSessionStore<S extends AdapterStore = ContextStore> implements SessionStore {
  /** The ledger the transcripts are in. */
  readonly store: S
  private readonly calls: StoreCalls
  private readonly transcripts: Transcripts
  private readonly forks: Forks

  /**
   * @param options - the store and an optional prefix of its ledger session ids
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
   */
  constructor(options: LedgerSessionStoreOptions<S>) {
    const { store, prefix } = checkStoreOptions(options)
    this.store = store
    this.calls = storeCalls(store)
    this.transcripts = new Transcripts(store, this.calls, prefix ?? '')
    this.forks = new Forks(this.transcripts, this.calls, (key, entries) => this.write(key, entries))
    registerForks(this, this.forks)
  }

  /**
   * The ledger session id holding a key's transcript: what the CLI (`npx context-ledger history <id>`),
   * `store.search({ sessionId })` and the recall tools take.
   *
   * @param key - the SDK's key
   * @returns the id
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad part of the key
   */
  sessionIdOf(key: SessionKey): string {
    return this.transcripts.idOf(checkKey(key))
  }

  /**
   * Stores a batch of transcript entries exactly, all or none, in one transaction with the session's
   * summary. Idempotent by `uuid`: an entry whose `uuid` is stored already, with the same content, is not
   * stored again (a batch re-sent after a crash adds nothing); entries without a `uuid` are always
   * appended. `[]` writes nothing. A compact summary folds what it replaced into a ledger summary.
   *
   * @param key - the transcript
   * @param entries - the entries, oldest first
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad part of the key, `INVALID_MESSAGE` (no
   *   `type`, a bad `uuid`, the reserved `contextLedger` key), `DUPLICATE_MESSAGE` (a stored `uuid` with
   *   other content, at `[i].uuid`), `FORMAT_MISMATCH`; nothing is written
   */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    await this.write(checkKey(key), entries)
  }

  /** `append` of a checked key: the fork a resume makes, the entries a fork holds, the rest stored. */
  private async write(key: CheckedKey, entries: unknown): Promise<void> {
    const batch = checkEntries(entries)
    if (batch.length === 0) return
    const transcript = this.transcripts.of(key)
    await this.queued(transcript, async () => {
      const sent: Kept = { entries: batch, indexOf: batch.map((_, i) => i) }
      const kept = (await this.transcripts.exists(transcript))
        ? await this.forks.held(transcript, sent)
        : ((await this.forks.resumeFork(transcript, batch)) ?? sent)
      if (kept.entries.length === 0) return
      let written
      try {
        written = await appendHoldingErased(transcript.port, kept.entries, {
          sessionMetadata: sidecarFold(key),
        })
      } catch (error) {
        throw kept.entries === batch ? error : rebased(error, kept.indexOf)
      }
      await foldCompactions(transcript.port, written, (uuid) =>
        rowOfUuid(this.forks.source, transcript.id, uuid),
      )
    })
  }

  /**
   * A transcript's entries in the order they were stored, each deep-equal to what was appended (a pruned
   * or redacted one in its erased form).
   *
   * @param key - the transcript
   * @returns its entries, or null when nothing was ever stored under the key (or it was deleted)
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad part of the key, `FORMAT_MISMATCH`
   */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const transcript = this.transcripts.of(checkKey(key))
    if (!(await this.transcripts.exists(transcript))) return null
    const entries = await this.forks.entries(transcript)
    if (entries.length > 0) return entries
    // A session is created by its first entry: none means another store or process deleted it.
    this.transcripts.forget(transcript.id)
    return null
  }

  /**
   * The main transcripts of a project, with the time each was last written (ms, integer: the sidecar's
   * `mtime`).
   *
   * @param projectKey - the project
   * @returns them, in no particular order
   */
  async listSessions(projectKey: string): Promise<{ sessionId: string; mtime: number }[]> {
    return (await this.mains(projectKey)).map(({ sidecar, session }) => ({
      sessionId: sidecar.sessionId,
      mtime: sidecar.summary?.mtime ?? session.updatedAt.getTime(),
    }))
  }

  /**
   * The SDK's summaries of a project's main transcripts, kept up to date by every append.
   *
   * @param projectKey - the project
   * @returns them, in no particular order
   */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    // A transcript without one (none written by this adapter yet) is left out: the SDK then loads it.
    return (await this.mains(projectKey)).flatMap(({ sidecar }) => sidecar.summary ?? [])
  }

  /**
   * Deletes a transcript: a main one with its subagent transcripts (each its own transaction, the main
   * one last, so a failure leaves it listed and a second call finishes), a subpath that one only. The
   * ledger erases every byte of them (see `ContextStore.deleteSession`). An unknown key is a no-op. A
   * main transcript whose entries a live fork shares (`forkSession`, a resume with `forkSession: true`)
   * is refused, unless `subtree` is true: then every fork below it goes too, with their subagent
   * transcripts. The SDK's `deleteSession()` calls this without options.
   *
   * @param key - the transcript
   * @param options - `subtree: true` to delete the forks below it too (this store's own option: the SDK's
   *   `SessionStore.delete` has none)
   * @throws ContextLedgerError `BRANCH_HAS_CHILDREN` at `key` naming the live forks (nothing deleted);
   *   `INVALID_OPTIONS` naming a bad option or key
   */
  async delete(key: SessionKey, options?: DeleteSessionOptions): Promise<void> {
    const checked = checkKey(key)
    const subtree = checkDeleteOptions(options)
    const own = this.transcripts.of(checked)
    const exists = await this.transcripts.exists(own)
    // Refused before anything goes: the main transcript's rows are its forks' too.
    if (exists && !subtree) await refuseLiveForks(this.calls, own)
    const tree = exists && subtree ? await subtreeOf(this.calls, this.transcripts, own) : undefined
    const doomed = [
      ...(tree?.subagents ?? []),
      ...(checked.subpath === undefined
        ? await this.transcripts.list(
            (k) => k.projectKey === checked.projectKey && k.sessionId === checked.sessionId,
          )
        : []),
    ]
    const ids = [...doomed.map((t) => t.id).filter((id) => id !== own.id), own.id]
    for (const id of ids) {
      if (id === own.id && !(await this.transcripts.exists(own))) break
      await this.calls.deleteSession(id, id === own.id && subtree ? { subtree } : undefined)
      this.transcripts.forget(id)
    }
    for (const id of tree?.below ?? []) this.transcripts.forget(id)
  }

  /**
   * The subpaths of a session's subagent transcripts.
   *
   * @param key - the main transcript's project and session
   * @returns the subpaths (never the main transcript), in no particular order
   */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const given: unknown = key
    // A subpath in the key is not the question: the session's subkeys are.
    const main = mainOf(
      checkKey(isRecord(given) ? { projectKey: given.projectKey, sessionId: given.sessionId } : given),
    )
    const subs = await this.transcripts.list(
      (k) => k.subpath !== undefined && k.projectKey === main.projectKey && k.sessionId === main.sessionId,
    )
    return subs.map((t) => t.sidecar.subpath ?? '')
  }

  /**
   * Pins an entry: retention (`prune`) never erases it, and the ledger window keeps it through
   * compactions.
   *
   * @param key - the transcript
   * @param uuid - the entry's `uuid`
   * @param attribution - who pins and why (default `'user'`)
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_OPTIONS`
   */
  async pin(key: SessionKey, uuid: string, attribution: PinAttribution = {}): Promise<PinResult> {
    const transcript = this.transcripts.of(checkKey(key))
    if (typeof uuid !== 'string' || uuid.length === 0)
      throw invalidOption('uuid', `expected an entry's uuid (a non-empty string), got ${describeValue(uuid)}`)
    await this.transcripts.exists(transcript)
    return this.queued(transcript, async () => {
      // An entry a fork shows through its parent is pinned in the fork by the seq of its row.
      const row = await rowOfUuid(this.forks.source, transcript.id, uuid)
      const ref = row === undefined ? { trackingId: uuid } : { seq: row.seq }
      return transcript.port.pin(ref, true, attribution)
    })
  }

  /**
   * Retention over this store's transcripts (of one project with `projectKey`): erases the content of
   * the entries appended before `olderThan` that a compaction replaced (out of the ledger window), but
   * pinned ones; the rows stay, in their erased form. To expire whole sessions, `delete` them.
   *
   * @param options - `olderThan`, `keepPinned: true`, optional `projectKey`, `actor`, `reason`
   * @returns transcripts examined, entries pruned, and whether the contents are gone from the files
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the field
   */
  async prune(options: ClaudePruneOptions): Promise<PruneResult> {
    const { olderThan, projectKey, actor, reason } = checkPruneOptions(options)
    const targets = await this.transcripts.list(
      (k) => projectKey === undefined || k.projectKey === projectKey,
    )
    let pruned = 0
    let erased = true
    for (const { id } of targets) {
      const result = await this.calls.prune({
        sessionId: id,
        before: olderThan,
        keepPinned: true,
        ...(actor === undefined ? {} : { actor }),
        ...(reason === undefined ? {} : { reason }),
      })
      pruned += result.pruned
      erased &&= result.erased
    }
    return { sessions: targets.length, pruned, erased }
  }

  private async mains(projectKey: string): Promise<ListedTranscript[]> {
    const project = checkProjectKey(projectKey)
    return this.transcripts.list((k) => k.subpath === undefined && k.projectKey === project)
  }

  private queued<T>(transcript: Transcript, fn: () => Promise<T>): Promise<T> {
    return serial(sessionState(this.store, transcript.id), fn)
  }
}
