/**
 * Everything about an incoming message that can be computed before taking the write lock: validation,
 * the tracking id, the exact JSON to store, its classification and its token count. User code (the
 * token counter) therefore never runs inside a transaction. The caller's value is read once, into a
 * plain copy (`snapshotMessage`); the body, the classification and the token count all come from that
 * copy, and the body is serialized before the token counter (caller code) sees the copy. The notes only
 * the library writes are stripped from a caller's message (`messages/reserved-notes.ts`).
 */
import { ContextLedgerError } from '../errors.js'
import { countFormatTokens, storedText, type BodyFormat } from '../formats/index.js'
import { strandsFormat } from '../formats/strands/index.js'
import type { MessageFacts } from '../formats/types.js'
import type { MessageClass } from '../messages/classify.js'
import type { MessageLimits } from '../messages/schema.js'
import type { TokenCounter } from '../messages/tokens.js'
import { mintTrackingId } from '../messages/tracking-id.js'
import type { StoredMessageData } from '../messages/types.js'

/** A validated message ready to be written. */
export interface PreparedMessage {
  /**
   * The message as it will be stored and returned (a Strands message carries its tracking id); for a
   * session of another format, that format's JSON (see `BodyFormat`).
   */
  readonly message: StoredMessageData
  /** The ledger's id for it (its `uid` column): the message's own id, or one minted here. */
  readonly uid: string
  /** `JSON.stringify(message)`: the stored body. */
  readonly body: string
  /** The searchable text to store, or null for a Strands message (the view derives it from the body). */
  readonly text: string | null
  /** Role, tool ids and plain-user flag. */
  readonly cls: MessageClass
  /** The facts its format derived (speaker, calls, whether it defers the previous message's calls). */
  readonly facts: MessageFacts
  /** Token count from the configured counter. */
  readonly tokens: number
  /** Whether it arrived with its format's pin flag. */
  readonly pinned: boolean
  /** Whether its id was minted here (a fresh UUID cannot already be in the session). */
  readonly minted: boolean
  /** Tool name and path per call it makes / answers, for the link rows and error paths. */
  readonly toolUses: readonly { id: string; name: string; path: string }[]
  readonly toolResults: readonly { id: string; status: 'success' | 'error'; path: string }[]
}

/**
 * Validates and prepares one message.
 *
 * @param input - what the caller passed
 * @param index - its position in the batch (errors name it), or -1 for a single message
 * @param counter - the token counter (`estimateTokens`, the default, counts by the format's estimate)
 * @param limits - validation limits
 * @param notes - `'caller'` (default): the body is a caller's, and the notes only the library writes are
 *   stripped from it (the format's `snapshot`); `'own'`: the store wrote it (a repair row)
 * @param format - the session's message format (default: Strands)
 * @returns the prepared message
 * @throws ContextLedgerError `INVALID_MESSAGE` (path prefixed with `[index].` in a batch) or `INVALID_TOKEN_COUNT`
 */
export function prepareMessage(
  input: unknown,
  index: number,
  counter: TokenCounter,
  limits: MessageLimits,
  notes: 'caller' | 'own' = 'caller',
  format: BodyFormat = strandsFormat,
): PreparedMessage {
  const valid = notes === 'own' ? (input as StoredMessageData) : snapshotAt(format, input, index, limits)
  const own = format.idOf(valid)
  const minted = own === undefined || own === ''
  const uid = minted ? mintTrackingId() : own
  return prepared(format, format.withId(valid, uid), uid, minted, counter)
}

/** A prepared message for a body already validated, under `uid`. */
function prepared(
  format: BodyFormat,
  message: StoredMessageData,
  uid: string,
  minted: boolean,
  counter: TokenCounter,
): PreparedMessage {
  const body = serialize(message)
  const facts = format.facts(message)
  const cls: MessageClass = {
    role: facts.role,
    toolUseIds: facts.toolUses.map((u) => u.id),
    toolResultIds: facts.toolResults.map((r) => r.id),
    plainUser: facts.plainUser,
  }
  const tokens = countFormatTokens(counter, format, message)
  return {
    message,
    uid,
    body,
    text: storedText(format, message),
    cls,
    facts,
    tokens,
    pinned: facts.pinned,
    minted,
    toolUses: facts.toolUses,
    toolResults: facts.toolResults,
  }
}

/**
 * The same prepared message under another id (a new occurrence of a re-sent message).
 *
 * @param format - the session's format
 * @param m - the prepared message
 * @param uid - the new id
 * @returns the copy
 */
export function withUid(format: BodyFormat, m: PreparedMessage, uid: string): PreparedMessage {
  // From the validated body, not `m.message`: the caller's token counter has seen that object since.
  const message = format.withId(JSON.parse(m.body) as StoredMessageData, uid)
  return { ...m, message, uid, body: serialize(message), minted: true }
}

/** The format's snapshot, with a batch's index in the error's path and message. */
function snapshotAt(
  format: BodyFormat,
  input: unknown,
  index: number,
  limits: MessageLimits,
): StoredMessageData {
  try {
    return format.snapshot(input, limits)
  } catch (error) {
    if (index < 0 || !(error instanceof ContextLedgerError)) throw error
    const inner = error.path === undefined || error.path === '(message)' ? '' : `.${error.path}`
    throw new ContextLedgerError(error.code, `Message ${index} of the batch: ${error.message}`, {
      path: `[${index}]${inner}`,
      cause: error.cause,
    })
  }
}

/** `JSON.stringify` of a validated copy; only a body too long for a JS string can fail. */
function serialize(message: StoredMessageData): string {
  try {
    return JSON.stringify(message)
  } catch (error) {
    throw new ContextLedgerError('INVALID_MESSAGE', 'Invalid message at (message): too large to serialize', {
      path: '(message)',
      cause: error,
    })
  }
}
