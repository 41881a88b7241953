/**
 * The queue a session's calls wait in, shared by every adapter object of the same store and session id in
 * a process: one call's read-then-write never interleaves with another's (two requests of a route that
 * opens a session each, or the runner's calls racing a caller's), and the AI SDK adapter's archived
 * message objects.
 */

/** What every `ledgerSession` of one session in a process shares: its queue and its archived objects. */
export interface SessionState {
  /** The end of the session's queue of calls. */
  queue: Promise<unknown>
  /** The message objects the session archived. */
  readonly archived: WeakSet<object>
}

const states = new WeakMap<object, Map<string, SessionState>>()

/**
 * The shared state of a session: one per store object and sessionId, for as long as the store lives.
 *
 * @param store - the store object the session was opened on
 * @param sessionId - the session
 * @returns its state
 */
export function sessionState(store: object, sessionId: string): SessionState {
  let sessions = states.get(store)
  if (sessions === undefined) states.set(store, (sessions = new Map<string, SessionState>()))
  let state = sessions.get(sessionId)
  if (state === undefined)
    sessions.set(sessionId, (state = { queue: Promise.resolve(), archived: new WeakSet() }))
  return state
}

/**
 * Runs `fn` after every call queued on the session before it.
 *
 * @param state - the session's state ({@link sessionState})
 * @param fn - the work
 * @returns its result
 */
export function serial<T>(state: SessionState, fn: () => Promise<T>): Promise<T> {
  const next = state.queue.then(fn, fn)
  state.queue = next.catch(() => undefined)
  return next
}
