/**
 * The `pin_message` tool, framework-neutral: a name, a description, a zod input schema and a handler
 * that pins or unpins through a core {@link PersistentConversationManager}. Register it with any agent
 * loop; the Strands adapter wraps the same handler (`context-ledger/strands` exports `pinMessageTool`).
 *
 * The handler never throws for what a model can get wrong (a bad index, unpinning a message that is not
 * pinned, a reason over 256 characters, a message no window can show, malformed input): it answers with
 * an error result the model can read and correct.
 */
import { z } from 'zod'
import { isContextLedgerError } from '../errors.js'
import type { PersistentConversationManager } from '../manager/persistent-conversation-manager.js'
import { ATTRIBUTION_MAX } from '../store/check-args.js'
import type { MessageRef, PinResult } from '../store/context-store.js'

/** The tool's name, as the model calls it. */
export const PIN_MESSAGE_TOOL_NAME = 'pin_message'

/** What the model reads about the tool. */
export const PIN_MESSAGE_TOOL_DESCRIPTION =
  'Pin a message of this conversation so it always stays in your context window, or unpin it so it may ' +
  'be dropped when space runs out. `index` is the position of the message in the conversation you ' +
  'currently see, starting at 0. Pin what you must not lose: the task definition, constraints, key ' +
  'decisions or results. Give a short `reason`.'

/**
 * The tool's input: `{ index: int ≥ 0, action: 'pin' | 'unpin' (default 'pin'), reason?: string of 1–256
 * characters }`. A longer reason is answered with an error result naming the bound (not truncated: the
 * model says what it means in fewer words, and the pin log never keeps a text the model did not write).
 */
export const pinMessageInputSchema = z.object({
  index: z.number().int().min(0).describe('Position of the message in the conversation you see, from 0'),
  action: z.enum(['pin', 'unpin']).default('pin').describe("'pin' (default) or 'unpin'"),
  reason: z
    .string()
    .min(1)
    .max(ATTRIBUTION_MAX)
    .optional()
    .describe('Why, in a few words; recorded with the pin'),
})

/** A parsed `pin_message` input. */
export type PinMessageInput = z.infer<typeof pinMessageInputSchema>

/** What the handler answers: the text the model reads, and whether the call succeeded. */
export interface PinMessageToolResult {
  /** `'success'`, or `'error'` for input the model should correct. */
  readonly status: 'success' | 'error'
  /** One sentence for the model. */
  readonly text: string
  /** What the store did, when the call reached it. */
  readonly pin?: PinResult
}

/** How a caller that shows the model a different message list maps the model's index to a message. */
export interface PinMessageTarget {
  /** How many messages the model sees. */
  readonly count: number
  /**
   * The message at a position the model sees.
   *
   * @param index - a position in `[0, count)`
   * @returns a reference the store understands
   */
  resolve(index: number): MessageRef
}

/** Options of {@link handlePinMessage}. */
export interface HandlePinMessageOptions {
  /** The messages the model sees; the manager's current window when omitted. */
  target?: PinMessageTarget | undefined
  /** Who is recorded as pinning; default `'agent'`. */
  actor?: string | undefined
}

function windowTarget(manager: PersistentConversationManager): PinMessageTarget {
  const count = manager.store.session(manager.sessionId)?.windowMessages ?? 0
  return { count, resolve: (windowIndex) => ({ windowIndex }) }
}

/**
 * Validates a `pin_message` input and its index against the number of messages the model sees.
 *
 * @param input - the tool input as the model sent it
 * @param count - how many messages the model sees
 * @returns the parsed input, or the error result to give the model
 */
export function checkPinMessageInput(
  input: unknown,
  count: number,
): { ok: true; input: PinMessageInput } | { ok: false; result: PinMessageToolResult } {
  let parsed: ReturnType<typeof pinMessageInputSchema.safeParse>
  try {
    parsed = pinMessageInputSchema.safeParse(input)
  } catch (error) {
    // A getter or Proxy trap that throws while the input is read (no JSON a model sends does).
    const text = `Invalid ${PIN_MESSAGE_TOOL_NAME} input: it could not be read (${error instanceof Error ? error.message : String(error)}).`
    return { ok: false, result: { status: 'error', text } }
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue === undefined || issue.path.length === 0 ? 'input' : issue.path.join('.')
    const text = `Invalid ${PIN_MESSAGE_TOOL_NAME} input at ${where}: ${issue?.message ?? 'not an object'}. Expected { index: integer >= 0, action?: 'pin' | 'unpin', reason?: string of 1-${ATTRIBUTION_MAX} characters }.`
    return { ok: false, result: { status: 'error', text } }
  }
  const index = parsed.data.index
  if (index < count) return { ok: true, input: parsed.data }
  const text =
    count === 0
      ? `Invalid index ${index}: there are no messages yet.`
      : `Invalid index ${index}: you see ${count} messages, so index must be between 0 and ${count - 1}.`
  return { ok: false, result: { status: 'error', text } }
}

/**
 * The answer to a pin or unpin that reached its message.
 *
 * @param index - the index the model gave
 * @param action - what it asked
 * @param changed - whether the pinned state changed
 * @returns an error result for unpinning a message that was not pinned, a success result otherwise
 */
export function describePinOutcome(
  index: number,
  action: PinMessageInput['action'],
  changed: boolean,
): PinMessageToolResult {
  if (action === 'unpin')
    return changed
      ? {
          status: 'success',
          text: `Unpinned message ${index}: it may leave your context window when space is needed.`,
        }
      : { status: 'error', text: `Message ${index} is not pinned, so there is nothing to unpin.` }
  return changed
    ? { status: 'success', text: `Pinned message ${index}: it stays in your context window until unpinned.` }
    : { status: 'success', text: `Message ${index} was already pinned; it stays in your context window.` }
}

/**
 * The answer the model reads when the store refused a pin or unpin for a reason the model can act on:
 * a message not stored yet, a message no window can show (a greeting before the first user message), a
 * reason the store counts otherwise (UTF-16 units: emoji count two) or refuses (a lone surrogate).
 *
 * @param error - what the store threw
 * @param index - the index the model gave
 * @param action - what it asked
 * @returns the error result, or undefined for a failure the model cannot cause (rethrow it)
 */
export function pinErrorResult(
  error: unknown,
  index: number,
  action: PinMessageInput['action'],
): PinMessageToolResult | undefined {
  if (isContextLedgerError(error, 'MESSAGE_NOT_FOUND'))
    return {
      status: 'error',
      text: `Message ${index} is not in the conversation store yet; try again later.`,
    }
  if (isContextLedgerError(error, 'INVALID_OPTIONS') && error.path === 'ref')
    return { status: 'error', text: `Message ${index} cannot be pinned: ${error.message}` }
  if (isContextLedgerError(error, 'INVALID_OPTIONS') && error.path?.startsWith('attribution.') === true)
    return {
      status: 'error',
      text: `Message ${index} was not ${action === 'pin' ? 'pinned' : 'unpinned'}: ${error.message}. Give a shorter plain-text reason.`,
    }
  return undefined
}

/**
 * Runs `pin_message` against a core manager: validates the input, checks the index against the messages
 * the model sees, and pins or unpins with the given actor and the model's reason.
 *
 * @param manager - the core manager of the session
 * @param input - the tool input as the model sent it (validated here)
 * @param options - how indices map to messages (default: the manager's window) and the actor
 * @returns a success or error result; throws only for failures the model cannot cause (e.g. a closed store)
 *
 * @example
 * ```ts
 * const result = handlePinMessage(manager, { index: 0, reason: 'task definition' })
 * // { status: 'success', text: 'Pinned message 0: …', pin: { seq: 0, … } }
 * ```
 */
export function handlePinMessage(
  manager: PersistentConversationManager,
  input: unknown,
  options: HandlePinMessageOptions = {},
): PinMessageToolResult {
  const target = options.target ?? windowTarget(manager)
  const checked = checkPinMessageInput(input, target.count)
  if (!checked.ok) return checked.result
  const { index, action, reason } = checked.input
  const attribution = { actor: options.actor ?? 'agent', ...(reason === undefined ? {} : { reason }) }
  let pin: PinResult
  try {
    const ref = target.resolve(index)
    pin = action === 'pin' ? manager.pin(ref, attribution) : manager.unpin(ref, attribution)
  } catch (error) {
    const result = pinErrorResult(error, index, action)
    if (result === undefined) throw error
    return result
  }
  return { ...describePinOutcome(index, action, pin.changed), pin }
}

/**
 * The framework-neutral tool: register `name`, `description` and `inputSchema` (a zod schema; its JSON
 * Schema is `z.toJSONSchema(inputSchema, { io: 'input' })`) with your agent loop and call
 * `handler(manager, input)` when the model calls it.
 *
 * @example
 * ```ts
 * const { name, description, inputSchema, handler } = pinMessageToolDefinition
 * // …declare { name, description, inputSchema } to the model; then, for each call of `name`:
 * const result = handler(manager, call.input)
 * reply({ toolUseId: call.id, status: result.status, content: [{ text: result.text }] })
 * ```
 */
export const pinMessageToolDefinition = Object.freeze({
  name: PIN_MESSAGE_TOOL_NAME,
  description: PIN_MESSAGE_TOOL_DESCRIPTION,
  inputSchema: pinMessageInputSchema,
  handler: handlePinMessage,
})
