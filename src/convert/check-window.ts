/**
 * The check every converter runs before converting: the window must be an array of valid messages
 * (what `validateMessage` accepts, hence what a store holds), and its tool calls must pair up as the
 * providers require, so a converter never hands back a request the provider would refuse for its tool
 * pairing. Each refusal is a `ContextLedgerError` whose `path` starts at the window index, e.g.
 * `[3].content[0].toolUse.toolUseId`.
 *
 * The pairing rule: the toolResults answering an assistant message's toolUse blocks are in the user
 * messages right after it (before the next assistant message), each call answered exactly once, and a
 * toolResult answers a call of that assistant message only. Where the converter merges runs of one role
 * (Anthropic), a run of assistant messages is one turn and a run of user messages one answer; where it
 * does not (OpenAI), tool outputs must directly follow the calls, so no other user content may come
 * before a result. A window that ends with unanswered calls — the process stopped between a call and its
 * result — is refused too, unless the caller asks for that unfinished turn to be left out.
 */
import { ContextLedgerError } from '../errors.js'
import {
  formatPath,
  MESSAGE_LIMIT_BOUNDS,
  snapshotMessageAt,
  type MessageLimits,
} from '../messages/schema.js'
import type { MessageData } from '../messages/types.js'
import { checkConvertOptions, type ConvertOptions } from './shared.js'

/** How a provider's converter lays out tool calls and results. */
export interface PairingRules {
  /** The provider's API name, for error messages. */
  readonly provider: string
  /** Whether the converter merges runs of one role into one message (Anthropic). */
  readonly mergesRuns: boolean
  /** Where a toolUse id must be unique: within the assistant turn, or in the whole request. */
  readonly uniqueIds: 'turn' | 'request'
  /** The pattern the provider requires of a call id, when it has one. */
  readonly idPattern?: RegExp | undefined
}

/**
 * The highest limits a store may be opened with: the converter accepts every message some store can
 * hold, while still refusing what is not plain JSON (cycles, bigints, class instances).
 */
const LIMITS: Readonly<MessageLimits> = Object.freeze({
  maxDepth: MESSAGE_LIMIT_BOUNDS.maxDepth[1],
  maxStringLength: MESSAGE_LIMIT_BOUNDS.maxStringLength[1],
})

/** An id as error messages show it: quoted, and shortened (ids may be long). */
function quote(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id)
}

function refuse(path: string, message: string): ContextLedgerError<'INVALID_MESSAGE'> {
  return new ContextLedgerError('INVALID_MESSAGE', message, { path })
}

/** Reads each index of the caller's array once (a getter or a Proxy may answer two reads differently). */
function readWindow(messages: unknown): unknown[] {
  try {
    if (Array.isArray(messages))
      return Array.from({ length: messages.length }, (_, i): unknown => messages[i])
  } catch (error) {
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    throw new ContextLedgerError('INVALID_MESSAGE', `Reading the window failed (${what})`, {
      path: 'messages',
      cause: error,
    })
  }
  throw refuse(
    'messages',
    `Expected the window as an array of messages, got ${messages === null ? 'null' : typeof messages}`,
  )
}

/**
 * Validates each message of the window into a plain copy; an error's path gets the index prefixed.
 *
 * @param messages - what the caller passed as the window
 * @returns the copies
 * @throws ContextLedgerError `INVALID_MESSAGE`, path `messages` for a non-array, `[i]…` for a bad message
 */
function validWindow(messages: unknown): MessageData[] {
  return readWindow(messages).map((message, i) => snapshotMessageAt(message, i, 'window', LIMITS))
}

/** Whether a user block is content of its own: not a tool output, and not dropped by every converter. */
function isContent(block: MessageData['content'][number]): boolean {
  return !('toolResult' in block || 'cachePoint' in block || 'reasoning' in block)
}

/** A toolUse not answered: its id and the path of its id. */
type OpenCall = readonly [id: string, path: string]

/** The walk over the window that follows which calls are waiting for their results. */
class ToolPairing {
  /** The calls of the current assistant turn (id → path), and those answered so far. */
  private calls = new Map<string, string>()
  private answered = new Map<string, string>()
  /** Every call of the window, for providers that want ids unique in the whole request. */
  private readonly everyCall = new Map<string, string>()
  /** The first message since the turn holding user content, for providers that need the results first. */
  private content: number | undefined

  constructor(private readonly rules: PairingRules) {}

  /** The first call of the current turn still without its result. */
  unanswered(): OpenCall | undefined {
    for (const [id, path] of this.calls) if (!this.answered.has(id)) return [id, path]
    return undefined
  }

  /** An assistant message: a new turn (unless it continues a run the converter merges), with its calls. */
  assistant(message: MessageData, i: number, continuesRun: boolean): void {
    const { provider, idPattern, uniqueIds } = this.rules
    if (!continuesRun) {
      const open = this.unanswered()
      if (open !== undefined) throw this.missing(open)
      this.calls = new Map()
      this.answered = new Map()
      this.content = undefined
    }
    message.content.forEach((block, j) => {
      if (!('toolUse' in block)) return
      const path = formatPath([i, 'content', j, 'toolUse', 'toolUseId'])
      const id = block.toolUse.toolUseId
      if (idPattern !== undefined && !idPattern.test(id))
        throw refuse(
          path,
          `toolUse id ${quote(id)} at ${path} does not match ${String(idPattern)}, which ${provider} ` +
            'requires of a call id',
        )
      const first = (uniqueIds === 'request' ? this.everyCall : this.calls).get(id)
      if (first !== undefined)
        throw refuse(
          path,
          `toolUse ${quote(id)} at ${path} reuses the id of the call at ${first}: ${provider} needs the ` +
            `call ids of ${uniqueIds === 'request' ? 'a request' : 'an assistant turn'} to be unique`,
        )
      this.calls.set(id, path)
      this.everyCall.set(id, path)
    })
  }

  /** A user message: each of its results must answer a waiting call of the turn, once. */
  user(message: MessageData, i: number): void {
    const { provider, mergesRuns } = this.rules
    message.content.forEach((block, j) => {
      if (!('toolResult' in block)) return
      const path = formatPath([i, 'content', j, 'toolResult', 'toolUseId'])
      const id = block.toolResult.toolUseId
      if (!this.calls.has(id))
        throw refuse(
          path,
          `toolResult for ${quote(id)} at ${path} answers no toolUse of the assistant message before it: ` +
            `${provider} refuses a result without its call. Leave it out, or include the message with ` +
            'its call.',
        )
      const first = this.answered.get(id)
      if (first !== undefined)
        throw refuse(
          path,
          `toolResult for ${quote(id)} at ${path} answers the call already answered at ${first}`,
        )
      if (this.content !== undefined && !mergesRuns)
        throw refuse(
          path,
          `toolResult for ${quote(id)} at ${path} comes after user content at [${this.content}]: ` +
            `${provider} needs the results right after the calls. Put them in the first user message ` +
            'after the call.',
        )
      this.answered.set(id, path)
    })
    if (this.content === undefined && message.content.some(isContent)) this.content = i
  }

  /** The refusal of a call the next user message does not answer. */
  missing([id, path]: OpenCall): ContextLedgerError<'INVALID_MESSAGE'> {
    return refuse(
      path,
      `toolUse ${quote(id)} at ${path} has no toolResult in the user message after it: ` +
        `${this.rules.provider} refuses a call without its result. Add its result (or an error result) ` +
        'to that message before converting.',
    )
  }

  /** The refusal of a call the window ends with. */
  pending([id, path]: OpenCall): ContextLedgerError<'INVALID_MESSAGE'> {
    return refuse(
      path,
      `toolUse ${quote(id)} at ${path} is still waiting for its result: the window ends with it (the ` +
        `process stopped between the call and its result?), and ${this.rules.provider} refuses a call ` +
        'without its result. Append its result (or an error result) first, or pass ' +
        "{ pendingToolUse: 'drop' } to leave the unfinished turn out.",
    )
  }
}

/**
 * Checks that the window's calls and results pair up, and leaves out an unfinished last turn when asked.
 *
 * @param window - valid messages
 * @param options - checked options
 * @param rules - how the provider's converter lays calls out
 * @returns the window, or its prefix up to the last user message when the unfinished turn is dropped
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the toolUse or toolResult that breaks the pairing
 */
function pairCalls(window: MessageData[], options: ConvertOptions, rules: PairingRules): MessageData[] {
  const pairing = new ToolPairing(rules)
  let lastUser = -1
  window.forEach((message, i) => {
    if (message.role === 'user') {
      pairing.user(message, i)
      lastUser = i
    } else pairing.assistant(message, i, rules.mergesRuns && window[i - 1]?.role === 'assistant')
  })
  const open = pairing.unanswered()
  if (open === undefined) return window
  // A call is pending only when no user message follows its turn: the window ends while it waits.
  if (lastUser === window.length - 1) throw pairing.missing(open)
  if (options.pendingToolUse === 'drop') return window.slice(0, lastUser + 1)
  throw pairing.pending(open)
}

/**
 * Checks what a converter was handed: the options, every message, and the pairing of tool calls.
 *
 * @param messages - the window as the caller passed it
 * @param options - the options as the caller passed them
 * @param rules - how the provider's converter lays calls out
 * @returns plain copies of the messages to convert (the unfinished last turn left out when asked), and
 *   the options
 * @throws ContextLedgerError `INVALID_OPTIONS` for bad options; `INVALID_MESSAGE` for a non-array (path
 *   `messages`), an invalid message or a broken tool pairing (path from the window index, e.g.
 *   `[3].content[0].toolUse.toolUseId`)
 */
export function checkWindow(
  messages: unknown,
  options: unknown,
  rules: PairingRules,
): { window: MessageData[]; options: ConvertOptions } {
  const checked = checkConvertOptions(options)
  return { window: pairCalls(validWindow(messages), checked, rules), options: checked }
}
