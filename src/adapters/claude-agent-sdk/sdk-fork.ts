/**
 * The SDK's own `forkSession` run over entries given here: its copy rules (which entries go, the
 * compaction and `upToMessageId` rules, the fields it rewrites, the title) are the SDK's, never written
 * again here. It runs against a store of one transcript that answers `load` with the given entries and
 * keeps what the SDK appends, so nothing is written anywhere; what comes back is exactly the transcript
 * the SDK's fork would have written (fresh random uuids and all).
 */
import {
  forkSession as sdkForkSession,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { ContextLedgerError } from '../../errors.js'

/** What the SDK's fork wrote. */
export interface SdkFork {
  /** The key the SDK read the source under (its project key from `dir`). */
  readonly source: SessionKey
  /** The new session's id, as the SDK minted it. */
  readonly sessionId: string
  /** The entries it appended for the new session, in order. */
  readonly entries: SessionStoreEntry[]
}

/** The options of a fork the SDK is asked for (`ForkSessionOptions` without the store). */
export interface SdkForkOptions {
  /** Copy up to this message (inclusive). */
  readonly upToMessageId?: string | undefined
  /** The fork's title. */
  readonly title?: string | undefined
  /** The project folder (the SDK's project key is derived from it). */
  readonly dir?: string | undefined
}

/**
 * A refusal of the SDK's fork as the ledger's error: a message it could not find, a session id that is
 * not a UUID, a session it could not load.
 */
function refusal(error: unknown, sessionId: string, options: SdkForkOptions): ContextLedgerError {
  const message = error instanceof Error ? error.message : String(error)
  const aboutMessage =
    options.upToMessageId !== undefined && /upToMessageId|Message .* not found/.test(message)
  const code = aboutMessage
    ? 'MESSAGE_NOT_FOUND'
    : /no messages to fork/.test(message)
      ? 'MESSAGE_NOT_FOUND'
      : /not found/i.test(message)
        ? 'SESSION_NOT_FOUND'
        : 'INVALID_OPTIONS'
  return new ContextLedgerError(code, `forkSession of session ${JSON.stringify(sessionId)}: ${message}`, {
    path: aboutMessage ? 'options.upToMessageId' : 'sessionId',
    cause: error,
  })
}

/**
 * Runs the SDK's `forkSession` over a transcript given by `read`.
 *
 * @param sessionId - the source session's SDK id
 * @param options - `upToMessageId`, `title`, `dir`
 * @param read - the source transcript under the key the SDK asks for (null: there is none)
 * @returns what the SDK's fork wrote
 * @throws ContextLedgerError what the SDK refused: `SESSION_NOT_FOUND` (no such session, or none with
 *   messages to fork), `MESSAGE_NOT_FOUND` at `options.upToMessageId`, `INVALID_OPTIONS` at `sessionId`
 *   (not a UUID); what `read` throws, as it threw it
 */
export async function runSdkFork(
  sessionId: string,
  options: SdkForkOptions,
  read: (key: SessionKey) => Promise<SessionStoreEntry[] | null>,
): Promise<SdkFork> {
  let source: SessionKey | undefined
  let written: { key: SessionKey; entries: SessionStoreEntry[] } | undefined
  let readError: { error: unknown } | undefined
  const store: SessionStore = {
    load: async (key) => {
      source = { ...key }
      try {
        return await read(key)
      } catch (error) {
        readError = { error }
        throw error
      }
    },
    append: (key, entries) => {
      written = { key: { ...key }, entries }
      return Promise.resolve()
    },
  }
  let forked: { sessionId: string }
  try {
    forked = await sdkForkSession(sessionId, {
      sessionStore: store,
      ...(options.upToMessageId === undefined ? {} : { upToMessageId: options.upToMessageId }),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.dir === undefined ? {} : { dir: options.dir }),
    })
  } catch (error) {
    if (readError !== undefined) throw readError.error
    throw refusal(error, sessionId, options)
  }
  if (source === undefined || written === undefined)
    throw refusal(new Error('the SDK read or wrote nothing'), sessionId, options)
  return { source, sessionId: forked.sessionId, entries: written.entries }
}
