/**
 * Fixtures for driving a real Strands `Agent` against real ledger files (in `useTempDir()` directories):
 * a scripted model that answers like a small tool-using assistant, and tools whose results have a chosen size.
 */
import { Agent, tool } from '@strands-agents/sdk'
import type { Logger, Message, Tool } from '@strands-agents/sdk'
import { z } from 'zod'
import type { ContextStore, JsonValue, MessageData } from '../../../src/index.js'
import {
  PersistentConversationManager,
  pinMessageTool,
  type AsyncContextStore,
  type PersistentConversationManagerOptions,
} from '../../../src/adapters/strands/index.js'
import {
  ScriptedModel,
  type ScriptedCall,
  type ScriptedReply,
} from '../../../examples/strands-scripted-model.js'

/** `lookup` returns `size` characters for its query; `lookup_json` a JSON array of `size` numbers. */
export function lookupTools(size = 120): Tool[] {
  const lookup = tool({
    name: 'lookup',
    description: 'Look something up',
    inputSchema: z.object({ q: z.string() }),
    callback: ({ q }) => `${q}: ${'r'.repeat(Math.max(0, size - q.length - 2))}`,
  })
  return [lookup]
}

function textOf(message: Message | undefined): string {
  const block = message?.content.find((b) => b.type === 'textBlock')
  return block !== undefined && 'text' in block ? block.text : ''
}

/**
 * Answers like a small assistant: a prompt starting with `pin N` calls `pin_message` on index N (with
 * `unpin N` it unpins); `ask X` calls `lookup` with X; a tool result gets `Answer <n>`; anything else gets
 * `Noted: <first 40 characters of the prompt>`. Tool-use ids are `<prefix><call index>`, so two runs of the same prompts match.
 */
export function assistantScript(prefix = 'tool-'): (call: ScriptedCall) => ScriptedReply {
  return (call) => assistantReply(call, `${prefix}${call.index}`)
}

function assistantReply(call: ScriptedCall, toolUseId: string): ScriptedReply {
  const last = call.messages.at(-1)
  if (last?.content.some((b) => b.type === 'toolResultBlock')) return `Answer ${call.index}`
  const prompt = textOf(last)
  const pin = /^(pin|unpin) (\d+)(?: (.*))?$/.exec(prompt)
  if (pin !== null)
    return [
      {
        toolUse: {
          toolUseId,
          name: 'pin_message',
          input: {
            index: Number(pin[2]),
            action: pin[1] as string,
            ...(pin[3] === undefined ? {} : { reason: pin[3] }),
          },
        },
      },
    ]
  if (prompt.startsWith('ask '))
    return [{ toolUse: { toolUseId, name: 'lookup', input: { q: prompt.slice(4) } } }]
  return `Noted: ${prompt.slice(0, 40)}`
}

/** The assistant script (tool ids `<prefix><call index>`), recording every conversation the model was handed. */
export function recordingModel(prefix: string, calls: ScriptedCall[]): ScriptedModel {
  const script = assistantScript(prefix)
  return new ScriptedModel({
    script: (call) => {
      calls.push({ ...call, messages: [...call.messages] })
      return script(call)
    },
  })
}

/** A real Agent with the scripted model, the lookup tool, `pin_message` and the ledger's manager. */
export function ledgerAgent<S extends ContextStore | AsyncContextStore = ContextStore>(
  options: PersistentConversationManagerOptions<S>,
  extra: { model?: ScriptedModel; tools?: Tool[]; messages?: MessageData[] } = {},
): { agent: Agent; manager: PersistentConversationManager<S>; model: ScriptedModel } {
  const manager = new PersistentConversationManager<S>(options)
  const model = extra.model ?? new ScriptedModel({ script: assistantScript() })
  const agent = new Agent({
    model,
    tools: [...(extra.tools ?? lookupTools()), pinMessageTool],
    conversationManager: manager,
    printer: false,
    // The Strands and ledger MessageData types are structural twins.
    ...(extra.messages === undefined ? {} : { messages: extra.messages as never }),
  })
  return { agent, manager, model }
}

/** `lookup` answering with `value`. */
export function lookupReturning(value: () => unknown) {
  return tool({
    name: 'lookup',
    description: 'Look something up',
    inputSchema: z.object({ q: z.string() }),
    callback: () => value() as string,
  })
}

/** The first tool-result item of a message's first block. */
export function toolResultOf(
  message: MessageData | undefined,
): { text?: string; json?: JsonValue } | undefined {
  const block = message?.content[0]
  const item = block !== undefined && 'toolResult' in block ? block.toolResult.content[0] : undefined
  return item as { text?: string; json?: JsonValue } | undefined
}

/** The JSON of a Strands message list, as the ledger stores it. */
export function json(messages: readonly Message[]): MessageData[] {
  return messages.map((m) => m.toJSON() as unknown as MessageData)
}

/** A Strands `Logger` that keeps every call, by level (the first argument as text, the rest as given). */
export interface RecordingLogger extends Logger {
  readonly lines: { level: 'debug' | 'info' | 'warn' | 'error'; text: string; extra: unknown[] }[]
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = []
  const at =
    (level: RecordingLogger['lines'][number]['level']) =>
    (text: unknown, ...extra: unknown[]) => {
      lines.push({ level, text: String(text), extra })
    }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
