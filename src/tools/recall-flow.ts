/**
 * How the recall tools' handlers run on either backend (src/tools/recall-tools.ts): each handler is a
 * generator that yields every read it needs ({@link Flow}), driven synchronously over SQLite's calls and
 * with `await` over PostgreSQL's — one text, one behaviour.
 */
import { PersistentConversationManager } from '../manager/persistent-conversation-manager.js'
import type { LedgerEntry } from '../store/store-types.js'
import type { EvictionRecord, SearchHit } from '../store/search-types.js'

/**
 * A manager whose calls return Promises, as the recall tools use it: the PostgreSQL manager of
 * `context-ledger/postgres` (described by shape, so this entry loads nothing of PostgreSQL).
 */
export interface AsyncRecallManager {
  /** The session. */
  readonly sessionId: string
  /** Full-text search of the session (see the PostgreSQL manager's `search`). */
  search(
    query: string,
    options: { limit: number; match: 'any'; endedSummaries: boolean; inWindow: boolean },
  ): Promise<SearchHit[]>
  /** The session's archive (see the PostgreSQL manager's `history`). */
  history(options: { fromSeq: number; limit: number }): Promise<LedgerEntry[]>
  /** The store the manager writes. */
  readonly store: {
    /** The session's summary, or undefined when it does not exist. */
    session(sessionId: string): Promise<{ readonly messageCount: number } | undefined>
    /** Why and when a message last left the window. */
    evictionOf(sessionId: string, seq: number): Promise<EvictionRecord | undefined>
  }
}

/** What the handlers read of a session: one backend's calls, each answering at once or with a Promise. */
export interface RecallSource {
  /** The best `limit` hits of the query among the messages in the window (`inWindow`) or out of it. */
  search(query: string, limit: number, inWindow: boolean): SearchHit[] | Promise<SearchHit[]>
  history(fromSeq: number, limit: number): LedgerEntry[] | Promise<LedgerEntry[]>
  messageCount(): number | Promise<number>
  evictionOf(seq: number): EvictionRecord | undefined | Promise<EvictionRecord | undefined>
}

/** A handler's work: a generator that yields each read (a value, or a Promise of it) and gets its answer back. */
export type Flow<T> = Generator<unknown, T, unknown>

/**
 * One read inside a {@link Flow}: yields what the source returned and gets back its value (awaited on
 * PostgreSQL, as it is on SQLite).
 *
 * @param value - what a source call returned
 * @returns its value
 */
export function* ask<T>(value: T | Promise<T>): Flow<T> {
  return (yield value) as T
}

/** Runs a flow over synchronous reads: every yielded value is already the answer. */
function runSync<T>(flow: Flow<T>): T {
  let step = flow.next()
  while (step.done !== true) step = flow.next(step.value)
  return step.value
}

/** Runs a flow over asynchronous reads: each yielded Promise is awaited, a rejection thrown into the flow. */
async function runAsync<T>(flow: Flow<T>): Promise<T> {
  let step = flow.next()
  while (step.done !== true) {
    let value: unknown
    try {
      value = await step.value
    } catch (error) {
      step = flow.throw(error)
      continue
    }
    step = flow.next(value)
  }
  return step.value
}

const SEARCH_OPTIONS = { match: 'any', endedSummaries: false } as const

/** The reads of either kind of manager: the same calls, answering at once (SQLite) or with a Promise. */
function sourceOf(m: PersistentConversationManager | AsyncRecallManager): RecallSource {
  const count = (s: { readonly messageCount: number } | undefined): number => s?.messageCount ?? 0
  return {
    search: (query, limit, inWindow) => m.search(query, { ...SEARCH_OPTIONS, limit, inWindow }),
    history: (fromSeq, limit) => m.history({ fromSeq, limit }),
    messageCount: () => {
      const session = m.store.session(m.sessionId)
      return session instanceof Promise ? session.then(count) : count(session)
    },
    evictionOf: (seq) => m.store.evictionOf(m.sessionId, seq),
  }
}

/** Runs a handler's flow on either kind of manager. */
export function run<T>(
  manager: PersistentConversationManager | AsyncRecallManager,
  flow: (source: RecallSource) => Flow<T>,
): T | Promise<T> {
  const source = sourceOf(manager)
  return manager instanceof PersistentConversationManager ? runSync(flow(source)) : runAsync(flow(source))
}
