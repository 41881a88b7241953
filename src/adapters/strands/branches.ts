/**
 * Branches from the Strands manager: a fork of the session for another agent, and a rewind of the session
 * under the agents that keep it. The store does the work (`fork`, `rewind`, `branches`: no message is
 * copied); this module brings the agents' side in step around it, the way Strands' own snapshot restore
 * does (`agent.loadSnapshot`: `agent.messages` replaced in place):
 * - before: what the agents added or pushed is written (held messages, pushes between invocations), so a
 *   trackingId seen in `agent.messages` names a stored message and nothing the agent shows is lost;
 * - after a rewind: every agent the manager keeps sees the session's window again — the messages after
 *   the rewind point gone from `agent.messages`, kept in the abandoned branch.
 *
 * A rewind while an agent is invoking is refused: the agent loop would answer its open tool call after
 * a window that no longer holds it.
 */
import { Agent, type LocalAgent, type Message } from '@strands-agents/sdk'
import { ContextLedgerError } from '../../errors.js'
import type {
  BranchInfo,
  ContextStore,
  ForkOptions,
  RewindOptions,
  RewindResult,
} from '../../store/context-store.js'
import type { AsyncContextStore } from './async-ledger.js'
import { toLedgerMessage } from './convert.js'
import { mergedFrom } from './sync/sync-context.js'

/** What a branch call needs of one agent's sync, on either backend. */
export interface BranchSync {
  /** The agent whose `messages` the sync keeps. */
  readonly agent: LocalAgent
  /**
   * Writes what the agent added or pushed that the store lacks.
   *
   * @returns the refusals (already logged; the refused messages are gone from `agent.messages`)
   */
  adopt(): ContextLedgerError[] | Promise<ContextLedgerError[]>
  /**
   * Makes `agent.messages` the session's window.
   *
   * @param force - rebuild every message object
   */
  show(force: boolean): void | Promise<void>
}

/**
 * Refuses a rewind while one of the agents is inside an invocation.
 *
 * @param syncs - the agents the manager keeps
 * @param sessionId - the session
 * @throws ContextLedgerError `INVALID_OPTIONS` (path `agent`)
 */
function refuseWhileInvoking(syncs: Iterable<BranchSync>, sessionId: string): void {
  for (const { agent } of syncs)
    if (agent instanceof Agent && agent.isInvoking)
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `Session "${sessionId}": rewind while its agent is invoking; the agent loop would go on after a window ` +
          'that no longer holds its turn. Rewind once invoke() has settled (agent.cancel() stops one early).',
        { sessionId, path: 'agent' },
      )
}

/**
 * The fork or rewind point as the agents see it: with `alternate`, a message of `agent.messages` may stand
 * for several stored ones merged (its trackingId is the first's), and a point named by it means all of
 * them — the last one's trackingId. Any other point is returned as it is.
 *
 * @param options - the caller's options
 * @param syncs - the agents the manager keeps
 * @returns the options, with the trackingId of the last merged message when the point names a merged one
 */
function pointAsShown<T extends ForkOptions | RewindOptions>(options: T, syncs: Iterable<BranchSync>): T {
  // JavaScript callers can pass anything: the store checks it.
  const given: unknown = options
  if (typeof given !== 'object' || given === null) return options
  const id = (given as { trackingId?: unknown }).trackingId
  if (typeof id !== 'string') return options
  for (const { agent } of syncs) {
    const shown: Message | undefined = agent.messages.find((m) => m.trackingId === id)
    if (shown === undefined) continue
    const last: unknown = mergedFrom(toLedgerMessage(shown)).at(-1)
    if (typeof last === 'string' && last !== id) return { ...options, trackingId: last }
  }
  return options
}

/** The session a fork or rewind is about, its store, and the agents that keep it. */
export type BranchTarget = {
  /** The session. */
  readonly sessionId: string
  /** The syncs of the agents the manager keeps. */
  readonly syncs: readonly BranchSync[]
} & (
  | { readonly store: ContextStore; readonly async?: undefined }
  | { readonly async: AsyncContextStore; readonly store?: undefined }
)

/**
 * Forks the session (see the Strands manager's `fork`). On PostgreSQL every refusal is the Promise's.
 *
 * @param target - the session, its store, its agents
 * @param point - the fork point and the store's fork options
 * @param managers - checks the new manager's options (before anything is written) and returns what makes
 *   the manager of a session
 * @returns the manager (a Promise of it on PostgreSQL)
 */
export function forkOn<M>(
  target: BranchTarget,
  point: ForkOptions,
  managers: () => (sessionId: string) => M,
): M | Promise<M> {
  const { sessionId, syncs } = target
  if (target.async !== undefined) {
    const async = target.async
    return (async () => {
      const manager = managers()
      await adoptAllAsync(syncs)
      return manager((await async.fork(sessionId, pointAsShown(point, syncs))).sessionId)
    })()
  }
  const manager = managers()
  adoptAll(syncs)
  return manager(target.store.fork(sessionId, pointAsShown(point, syncs)).sessionId)
}

/**
 * Rewinds the session and shows each agent its window again (see the Strands manager's `rewind`). On
 * PostgreSQL every refusal is the Promise's.
 *
 * @param target - the session, its store, its agents
 * @param point - the rewind point and the store's rewind options
 * @returns the store's result (a Promise of it on PostgreSQL)
 */
export function rewindOn(target: BranchTarget, point: RewindOptions): RewindResult | Promise<RewindResult> {
  const { sessionId, syncs } = target
  if (target.async !== undefined) {
    const async = target.async
    return (async () => {
      refuseWhileInvoking(syncs, sessionId)
      await adoptAllAsync(syncs)
      const result = await async.rewind(sessionId, pointAsShown(point, syncs))
      for (const sync of syncs) await sync.show(false)
      return result
    })()
  }
  refuseWhileInvoking(syncs, sessionId)
  adoptAll(syncs)
  const result = target.store.rewind(sessionId, pointAsShown(point, syncs))
  for (const sync of syncs) void sync.show(false)
  return result
}

/**
 * The tree of branches holding the session.
 *
 * @param target - the session and its store
 * @returns the store's `branches` (a Promise of them on PostgreSQL)
 */
export function branchesOn(target: BranchTarget): BranchInfo[] | Promise<BranchInfo[]> {
  if (target.async !== undefined) return target.async.branches(target.sessionId)
  return target.store.branches(target.sessionId)
}

/**
 * The options of a fork's manager: the forked manager's, `overrides` over them, the new session.
 *
 * @param base - the forked manager's options as given
 * @param overrides - the caller's changes
 * @returns the options for a session id
 * @throws ContextLedgerError `INVALID_OPTIONS` for overrides that are no object, or name `store` or
 *   `sessionId`
 */
export function branchSettings<O extends { sessionId: string }>(
  base: O,
  overrides: Partial<O>,
): (sessionId: string) => O {
  // JavaScript callers can pass anything.
  const given: unknown = overrides
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `fork options: expected an object, got ${String(given)}`,
      {
        path: 'options',
      },
    )
  for (const key of ['store', 'sessionId'])
    if (Object.hasOwn(given, key))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `fork options.${key}: the branch's manager keeps the store and takes the new session; name the session with the fork point's newSessionId`,
        { path: `options.${key}` },
      )
  return (sessionId) => ({ ...base, ...overrides, sessionId })
}

/** Writes what the agents added or pushed (SQLite); throws the first refusal (nothing forked or rewound). */
function adoptAll(syncs: Iterable<BranchSync>): void {
  for (const sync of syncs) {
    const refusals = sync.adopt() as ContextLedgerError[]
    if (refusals[0] !== undefined) throw refusals[0]
  }
}

/** {@link adoptAll} on PostgreSQL. */
async function adoptAllAsync(syncs: Iterable<BranchSync>): Promise<void> {
  for (const sync of syncs) {
    const refusals = await sync.adopt()
    if (refusals[0] !== undefined) throw refusals[0]
  }
}
