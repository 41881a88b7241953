/**
 * Fixtures of the Strands branch tests: an agent on a manager a fork returned, and what the model and
 * the store were shown, as text.
 */
import { Agent } from '@strands-agents/sdk'
import type { Message, Tool } from '@strands-agents/sdk'
import type { ScriptedCall } from '../../../examples/strands-scripted-model.js'
import type { ContextStore, LedgerEntry, MessageData } from '../../../src/index.js'
import {
  pinMessageTool,
  type AsyncContextStore,
  type PersistentConversationManager,
} from '../../../src/adapters/strands/index.js'
import { lookupTools, recordingModel } from './helpers.js'

/** The store the Strands manager takes, on either backend. */
export type AnyStore = ContextStore | AsyncContextStore

/**
 * A real Agent on a manager (a fork's), with the assistant script under its own tool-id prefix, recording
 * every conversation its model was handed.
 *
 * @param manager - the manager
 * @param prefix - the tool-use id prefix (another than the parent's, so ids stay unique in the branch)
 * @param tools - the tools besides `pin_message` (default: `lookup`)
 * @returns the agent and the model's calls
 */
export function agentOn<S extends ContextStore | AsyncContextStore>(
  manager: PersistentConversationManager<S>,
  prefix: string,
  tools: Tool[] = lookupTools(),
): { agent: Agent; calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = []
  const agent = new Agent({
    model: recordingModel(prefix, calls),
    tools: [...tools, pinMessageTool],
    conversationManager: manager,
    printer: false,
  })
  return { agent, calls }
}

/** The text of a message in the ledger's form: its text blocks, its tool calls' inputs, its results. */
export function textOf(message: MessageData): string {
  return message.content
    .map((b) => {
      if ('text' in b) return b.text
      if ('toolUse' in b) return `call ${JSON.stringify(b.toolUse.input)}`
      if ('toolResult' in b)
        return `result ${b.toolResult.content.map((i) => ('text' in i ? i.text : '')).join('')}`
      return ''
    })
    .join(' ')
}

/** Each message's text (see {@link textOf}). */
export function textsOf(messages: readonly (Message | MessageData)[]): string[] {
  return messages.map((m) => textOf(('toJSON' in m ? m.toJSON() : m) as MessageData))
}

/** Each entry's text. */
export function entryTexts(entries: readonly LedgerEntry[]): string[] {
  return entries.map((e) => textOf(e.message))
}

/** Every text any of the model's calls was handed. */
export function seenByModel(calls: readonly ScriptedCall[]): string[] {
  return [...new Set(calls.flatMap((c) => textsOf(c.messages)))]
}

/** Role and content of each message: what two agents running the same script agree on. */
export function shape(messages: readonly MessageData[]): unknown[] {
  return messages.map((m) => ({ role: m.role, content: m.content }))
}
