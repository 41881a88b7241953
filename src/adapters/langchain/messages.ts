/**
 * LangChain messages and the ledger's bodies. A message is stored as LangChain's own `StoredMessage`
 * (`message.toDict()`, the `langchain` format), checked on the way in with LangChain's own
 * (de)serialization: the plain-JSON copy of `toDict()` must revive through
 * `mapStoredMessagesToChatMessages`, or it is `INVALID_MESSAGE` with a path and nothing is written. On the
 * way out a body revives the same way, under the id the adapter gives it.
 */
import { BaseMessage, mapStoredMessagesToChatMessages, type StoredMessage } from '@langchain/core/messages'
import { ContextLedgerError } from '../../errors.js'
import { canonical } from '../canonical.js'
import { describeValue, type MessageLimits } from '../../messages/limits.js'
import { snapshotJson } from '../../messages/json-snapshot.js'
import { formatNamed } from '../../formats/index.js'
import { LC_NOTES_KEY } from '../../formats/langchain/index.js'

/** A stored LangChain message as plain JSON: `{ type, data }`. */
export interface LangChainBody {
  /** `human`, `ai`, `tool`, `system`, `generic`. */
  readonly type: string
  /** Its fields (`content`, `id`, `tool_calls`, `tool_call_id`, …). */
  readonly data: Record<string, unknown> & { readonly id?: unknown }
}

/**
 * The ids the adapter gives the messages the ledger made or rewrote (a summary, a repair, a late or
 * truncated form, the marker of a cleared conversation, a message stored without an id) start with this:
 * such a message is the ledger's already, and is never appended again.
 */
export const LEDGER_ID_PREFIX = 'context-ledger:'

/**
 * Whether a message carries an id the adapter gave it (see {@link LEDGER_ID_PREFIX}).
 *
 * @param id - a message's id
 * @returns true for the ledger's own
 */
export const isLedgerId = (id: unknown): boolean => typeof id === 'string' && id.startsWith(LEDGER_ID_PREFIX)

/**
 * The path of a field of message `index` under `root`: `messages[2].data.tool_call_id`.
 *
 * @param root - the list's name (`messages`), or `''` for a bare list (`[2].data…`)
 * @param index - the message's position
 * @param path - the field's path inside the message (`data.tool_call_id`), `(message)` or undefined for the message itself
 * @returns the path
 */
export function pathIn(root: string, index: number, path?: string): string {
  const at = `${root}[${index}]`
  if (path === undefined || path === '' || path === '(message)') return at
  return path.startsWith('[') ? `${at}${path}` : `${at}.${path}`
}

/**
 * The `INVALID_MESSAGE` error for a message refused at `path`.
 *
 * @param path - where (`messages[2].data.tool_call_id`)
 * @param problem - what is wrong
 * @param cause - the underlying error, if any
 * @returns the error to throw
 */
export function invalidMessage(path: string, problem: string, cause?: unknown): ContextLedgerError {
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid message at ${path}: ${problem}`, {
    path,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** The field a failure of LangChain's revival names, from its message. */
function revivalField(error: unknown): string {
  const text = error instanceof Error ? error.message : ''
  if (text.startsWith('Tool call ID')) return 'data.tool_call_id'
  if (text.startsWith('Role must')) return 'data.role'
  if (text.startsWith('Name must')) return 'data.name'
  if (text.startsWith('Got unexpected type')) return 'type'
  return ''
}

/**
 * Revives a body as LangChain does, on a copy: `mapStoredMessagesToChatMessages` changes the objects it
 * is given (a v1 AIMessage's fields), and the body is the ledger's.
 *
 * @param body - a stored message
 * @returns the message
 * @throws what LangChain throws for a body it cannot revive
 */
const revive = (body: LangChainBody): BaseMessage =>
  mapStoredMessagesToChatMessages([structuredClone(body) as unknown as StoredMessage])[0] as BaseMessage

/**
 * A LangChain message as the body the ledger stores: the plain-JSON copy of `toDict()`, revived once
 * with `mapStoredMessagesToChatMessages` to prove LangChain can read it back.
 *
 * @param message - what the caller or the graph state holds
 * @param path - where it is, for errors (`messages[2]`)
 * @param limits - the store's validation limits
 * @returns the body
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function toBody(message: unknown, path: string, limits: Readonly<MessageLimits>): LangChainBody {
  let dict: unknown
  try {
    // LangChain's own check reads the message's fields, so a hostile getter can throw from it too.
    if (!BaseMessage.isInstance(message))
      throw invalidMessage(path, `expected a LangChain BaseMessage, got ${describeValue(message)}`)
    dict = message.toDict()
  } catch (cause) {
    if (cause instanceof ContextLedgerError) throw cause
    throw invalidMessage(path, 'LangChain could not serialize it (toDict failed)', cause)
  }
  let body: LangChainBody
  try {
    body = snapshotJson(dict, limits, true) as unknown as LangChainBody
  } catch (error) {
    if (!(error instanceof ContextLedgerError)) throw error
    const inner = error.path === undefined || error.path === '(message)' ? '' : `.${error.path}`
    throw invalidMessage(`${path}${inner}`, error.message.replace(/^Invalid message at [^:]*: /, ''), error)
  }
  const kwargs = body.data.additional_kwargs
  if (typeof kwargs === 'object' && kwargs !== null && Object.hasOwn(kwargs, LC_NOTES_KEY))
    throw invalidMessage(
      `${path}.data.additional_kwargs.${LC_NOTES_KEY}`,
      'this key is reserved for the ledger (its repair rows and summaries); it is never taken from a message given to it',
    )
  try {
    revive(body)
  } catch (cause) {
    const field = revivalField(cause)
    const problem = cause instanceof Error ? cause.message : String(cause)
    throw invalidMessage(
      field === '' ? path : `${path}.${field}`,
      `LangChain cannot deserialize it (mapStoredMessagesToChatMessages: ${problem})`,
      cause,
    )
  }
  return body
}

/**
 * Revives a body under an id.
 *
 * @param body - a body the ledger holds (without the ledger's notes)
 * @param id - the id the message gets (its own, or one the adapter gave it)
 * @returns the LangChain message
 */
export function fromBody(body: LangChainBody, id: string | undefined): BaseMessage {
  const { id: _own, ...data } = body.data
  return revive({ type: body.type, data: id === undefined ? data : { ...data, id } })
}

/**
 * What must be equal for a message met again to be the one the ledger holds: the format's content key
 * (type, role, name, content, calls, the call answered) of the body as LangChain would write it again.
 *
 * @param body - a body
 * @returns the key
 */
export const contentKeyOf = (body: LangChainBody): string =>
  formatNamed('langchain').contentKey(normalBody(body) as never)

/**
 * A body as LangChain would write it again, keys sorted: revived and serialized, so two bodies of one
 * message compare equal whatever LangChain filled in on the way (an empty `invalid_tool_calls`, a tool
 * call's `type`) or the order of their keys.
 *
 * @param body - a body
 * @returns its normal form
 */
export function normalBody(body: LangChainBody): LangChainBody {
  return JSON.parse(canonical(revive(body).toDict())) as LangChainBody
}
