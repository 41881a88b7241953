/**
 * A `SessionStore` that records every call the SDK makes to it — each `append` with its key and
 * entries, each read with its key — and passes it on to the store that answers: the SDK's own
 * `InMemorySessionStore` by default (the fixtures of test/fixtures/claude-agent/ are what it recorded under
 * the real CLI), or the `LedgerSessionStore` under test (the end-to-end test compares what the ledger
 * loads with what the CLI handed it).
 */
import {
  InMemorySessionStore,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from '@anthropic-ai/claude-agent-sdk'

/** One `append` the store received. */
export interface RecordedAppend {
  /** The key, exactly as the SDK passed it. */
  readonly key: SessionKey
  /** The batch, exactly as the SDK passed it. */
  readonly entries: SessionStoreEntry[]
}

/** One read the store received. */
export interface RecordedRead {
  /** Which method. */
  readonly method: 'load' | 'listSubkeys' | 'listSessions' | 'listSessionSummaries' | 'delete'
  /** Its argument. */
  readonly key: SessionKey | string | { readonly projectKey: string; readonly sessionId: string }
}

/** A store that records what it was asked, and passes it on. */
export class RecordingSessionStore implements SessionStore {
  /** Every append, in order (each batch deep-copied when it arrived). */
  readonly appends: RecordedAppend[] = []
  /** Every other call, in order. */
  readonly reads: RecordedRead[] = []

  /** @param inner - answers every call (it must have every optional method) */
  constructor(readonly inner: Required<SessionStore> = new InMemorySessionStore()) {}

  /** @inheritdoc */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    this.appends.push({ key: { ...key }, entries: structuredClone(entries) })
    await this.inner.append(key, entries)
  }

  /** @inheritdoc */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    this.reads.push({ method: 'load', key: { ...key } })
    return this.inner.load(key)
  }

  /** @inheritdoc */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    this.reads.push({ method: 'listSubkeys', key: { ...key } })
    return this.inner.listSubkeys(key)
  }

  /** @inheritdoc */
  async listSessions(projectKey: string): Promise<{ sessionId: string; mtime: number }[]> {
    this.reads.push({ method: 'listSessions', key: projectKey })
    return this.inner.listSessions(projectKey)
  }

  /** @inheritdoc */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    this.reads.push({ method: 'listSessionSummaries', key: projectKey })
    return this.inner.listSessionSummaries(projectKey)
  }

  /** @inheritdoc */
  async delete(key: SessionKey): Promise<void> {
    this.reads.push({ method: 'delete', key: { ...key } })
    await this.inner.delete(key)
  }
}

/** A key as the SDK's in-memory store names it: `projectKey/sessionId[/subpath]`. */
export const keyString = (key: SessionKey): string =>
  [key.projectKey, key.sessionId, ...(key.subpath === undefined ? [] : [key.subpath])].join('/')

/**
 * Folds recorded appends into each key's transcript, as `load` returns it.
 *
 * @param appends - the batches, in order
 * @returns entries by {@link keyString}
 */
export function transcripts(appends: readonly RecordedAppend[]): Map<string, SessionStoreEntry[]> {
  const out = new Map<string, SessionStoreEntry[]>()
  for (const a of appends) {
    const k = keyString(a.key)
    out.set(k, [...(out.get(k) ?? []), ...a.entries])
  }
  return out
}
