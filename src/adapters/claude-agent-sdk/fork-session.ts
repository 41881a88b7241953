/**
 * `forkSession` with the SDK's signature and result, on the ledger: given a `LedgerSessionStore` as
 * `sessionStore`, the fork is a ledger fork — one session row, whatever the length of the parent — whose
 * `load` gives the entries the SDK's own fork would have written, uuids by the fork's rule (fork-ids.ts).
 * Any other `sessionStore`, or none, is the SDK's own `forkSession`.
 */
import {
  forkSession as sdkForkSession,
  type ForkSessionOptions,
  type ForkSessionResult,
} from '@anthropic-ai/claude-agent-sdk'
import { describeValue } from '../../messages/limits.js'
import { checkKeys, invalidOption } from '../../store/check-args.js'
import { forksOf } from './forks.js'

/** The options' text fields, checked. */
function textOption(value: unknown, field: string, empty = false): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || (value.length === 0 && !empty))
    throw invalidOption(
      `options.${field}`,
      `expected a${empty ? '' : ' non-empty'} string, got ${describeValue(value)}`,
    )
  return value
}

/**
 * Forks a session as the SDK's `forkSession` does: a new session holding the transcript up to
 * `upToMessageId` (inclusive; all of it without), under a new session id, resumable with `query({
 * options: { resume: sessionId, sessionStore } })`. With a `LedgerSessionStore`, nothing is copied: the
 * new session is a branch of the parent's ledger session (see docs/claude-agent-sdk.md, "Forks").
 *
 * @example
 * ```ts
 * const { sessionId: forkId } = await forkSession(sessionId, { upToMessageId, sessionStore })
 * ```
 *
 * @param sessionId - the session to fork (a UUID)
 * @param options - the SDK's `ForkSessionOptions`: `upToMessageId`, `title`, `dir`, `sessionStore`
 * @returns the new session's id
 * @throws ContextLedgerError (with a `LedgerSessionStore`) `INVALID_OPTIONS` naming a bad or unknown
 *   option or a `sessionId` that is not a UUID, `SESSION_NOT_FOUND` at `sessionId`, `MESSAGE_NOT_FOUND`
 *   at `options.upToMessageId` (or at `sessionId`: nothing to fork); nothing is written
 */
export async function forkSession(
  sessionId: string,
  options?: ForkSessionOptions,
): Promise<ForkSessionResult> {
  const forks = forksOf(options?.sessionStore)
  if (forks === undefined) return sdkForkSession(sessionId, options)
  const o = checkKeys(options, 'options', ['upToMessageId', 'title', 'dir', 'sessionStore'])
  if (typeof sessionId !== 'string' || sessionId.length === 0)
    throw invalidOption('sessionId', `expected a session id (a UUID), got ${describeValue(sessionId)}`)
  const upToMessageId = textOption(o.upToMessageId, 'upToMessageId')
  const title = textOption(o.title, 'title', true)
  const dir = textOption(o.dir, 'dir')
  return forks.fork(sessionId, {
    ...(upToMessageId === undefined ? {} : { upToMessageId }),
    ...(title === undefined ? {} : { title }),
    ...(dir === undefined ? {} : { dir }),
  })
}
