/**
 * Appending the messages of a list (the graph state's `messages`, or what a chat history is given) that
 * the ledger does not hold yet, once. The list is read from its newest message back to the first one the
 * session holds — by its id — or one the ledger made (an id starting `context-ledger:`, checked to name
 * what the session showed under it: see ledger-ids.ts); what comes after
 * it is new and is appended, in order, all or none. A message met again under a stored id must be the
 * stored message (LangGraph's reducer replaces a message by id): other content under it is refused, as
 * the `langchain` format refuses a reused id among new messages (`DUPLICATE_MESSAGE`, here
 * `INVALID_MESSAGE` with that as its cause). An append with nothing new writes nothing.
 */
import type { BaseMessage } from '@langchain/core/messages'
import { ContextLedgerError, isContextLedgerError } from '../../errors.js'
import { describeValue, type MessageLimits } from '../../messages/limits.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort } from '../port.js'
import { checkLedgerMessage } from './ledger-ids.js'
import { contentKeyOf, invalidMessage, isLedgerId, pathIn, toBody, type LangChainBody } from './messages.js'

/**
 * Refuses a message met under a stored id with other content — unless the ledger erased the stored one
 * (a redaction, or retention's pruning): the caller's copy (a checkpointed graph state) predates the
 * erasure and cannot be compared with it; the erasure stands, and the copy is not stored again.
 *
 * @param port - the session
 * @param stored - the entry under its id
 * @param body - the message met, as a body
 * @param path - where it is
 * @throws ContextLedgerError `INVALID_MESSAGE` at `path.id`
 */
async function checkSame(
  port: LedgerPort,
  stored: LedgerEntry,
  body: LangChainBody,
  path: string,
): Promise<void> {
  if (contentKeyOf(stored.message as unknown as LangChainBody) === contentKeyOf(body)) return
  if ((await port.edits()).some((e) => e.seq === stored.seq && e.kind === 'redact')) return
  const where = `${path}.data.id`
  throw new ContextLedgerError(
    'INVALID_MESSAGE',
    `Invalid message at ${where}: message id ${JSON.stringify(stored.trackingId)} is already stored in session "${stored.sessionId}" (seq ${stored.seq}) with other content; a new message needs a new id. Two usual causes: a model that reuses ids across runs (LangChain's fakeModel() ids its answers "0", "1", … in every process), or a middleware that rewrites a message in place after the ledger stored it (humanInTheLoopMiddleware's edit: list it after ledgerMiddleware)`,
    { path: where, sessionId: stored.sessionId },
  )
}

/**
 * How many of `messages`, from the first, the session holds already (see the module comment).
 *
 * @param port - the session
 * @param messages - the list
 * @param root - its name in error paths (`messages`)
 * @param limits - the store's validation limits
 * @returns the index of the first new message
 * @throws ContextLedgerError `INVALID_MESSAGE` for a held id met with other content
 */
export async function heldPrefix(
  port: LedgerPort,
  messages: readonly BaseMessage[],
  root: string,
  limits: Readonly<MessageLimits>,
): Promise<number> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const id = (messages[i] as { id?: unknown } | undefined)?.id
    if (isLedgerId(id)) {
      await checkLedgerMessage(port, toBody(messages[i], pathIn(root, i), limits), pathIn(root, i))
      return i + 1
    }
    if (typeof id !== 'string' || id === '') continue
    const stored = await port.byTrackingId(id)
    if (stored === undefined) continue
    await checkSame(port, stored, toBody(messages[i], pathIn(root, i), limits), pathIn(root, i))
    return i + 1
  }
  return 0
}

/**
 * An append's refusal with its path under the list: `[2].data.id` of the batch becomes
 * `messages[7].data.id`; a reused id (`DUPLICATE_MESSAGE`) becomes `INVALID_MESSAGE` with it as cause.
 */
function rebased(error: unknown, root: string, indexOf: (k: number) => number): unknown {
  if (!isContextLedgerError(error, 'INVALID_MESSAGE') && !isContextLedgerError(error, 'DUPLICATE_MESSAGE'))
    return error
  const match = /^\[(\d+)\]\.?(.*)$/.exec(error.path ?? '')
  // The store names a reused id `id`; a LangChain message holds it at `data.id`.
  const field = error.code === 'DUPLICATE_MESSAGE' && match?.[2] === 'id' ? 'data.id' : match?.[2]
  const path = match === null ? root || 'messages' : pathIn(root, indexOf(Number(match[1])), field)
  const problem = error.message.replace(/^Invalid message at [^:]*: /, '')
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid message at ${path}: ${problem}`, {
    path,
    cause: error,
    ...(error.sessionId === undefined ? {} : { sessionId: error.sessionId }),
  })
}

/**
 * Appends the messages of `messages` the session does not hold yet (see the module comment).
 *
 * @param port - the session
 * @param messages - the list, oldest first
 * @param root - its name in error paths (`messages`, or `''` for a bare list)
 * @param limits - the store's validation limits
 * @returns how many messages were new (and appended)
 * @throws ContextLedgerError `INVALID_MESSAGE` with a path; nothing is written
 */
export async function syncMessages(
  port: LedgerPort,
  messages: readonly BaseMessage[],
  root: string,
  limits: Readonly<MessageLimits>,
): Promise<number> {
  const from = await heldPrefix(port, messages, root, limits)
  const fresh = messages.slice(from).map((m, k) => toBody(m, pathIn(root, from + k), limits))
  if (fresh.length === 0) return 0
  try {
    await port.append(fresh)
  } catch (error) {
    throw rebased(error, root, (k) => from + k)
  }
  return fresh.length
}

/**
 * Appends every message of a list that is not the ledger's own, once by id: a message whose id the
 * session holds with equal content writes nothing (the format's unique ids), other content under it is
 * refused. For a chat history, whose caller hands over only new messages.
 *
 * @param port - the session
 * @param messages - the list, oldest first
 * @param limits - the store's validation limits
 * @returns how many messages were given (the ledger's own left out)
 * @throws ContextLedgerError `INVALID_MESSAGE` with a path (`[2].data.tool_call_id`); nothing is written
 */
export async function appendMessages(
  port: LedgerPort,
  messages: readonly unknown[],
  limits: Readonly<MessageLimits>,
): Promise<number> {
  // JavaScript callers can pass anything.
  if (!Array.isArray(messages))
    throw invalidMessage(
      'messages',
      `expected an array of LangChain messages, got ${describeValue(messages)}`,
    )
  const bodies = messages.map((m, i) => toBody(m, pathIn('', i), limits))
  for (const [i, b] of bodies.entries())
    if (isLedgerId(b.data.id)) await checkLedgerMessage(port, b, pathIn('', i))
  const kept = bodies.flatMap((b, i) => (isLedgerId(b.data.id) ? [] : [{ b, i }]))
  if (kept.length === 0) return 0
  try {
    await port.append(kept.map((k) => k.b))
  } catch (error) {
    throw rebased(error, '', (k) => kept[k]?.i ?? k)
  }
  return kept.length
}
