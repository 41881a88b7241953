/**
 * Checks items with the OpenAI Agents SDK's own schemas (`protocol`, the zod schemas its runner parses
 * with) before the ledger sees them: each item against the schema of its own type (a message by its
 * role), so a refusal names the first bad field (`[2].callId`), not the union. Then the `openai-agents`
 * format's own check runs at append. Nothing is written when either refuses.
 */
import { protocol } from '@openai/agents'
import type { z } from 'zod'
import { ContextLedgerError } from '../../errors.js'
import { describeValue } from '../../messages/limits.js'

type PathKey = PropertyKey | { readonly key: PropertyKey }

/** `[2].content[0].type` from an item index and an issue's path. */
function pathOf(index: number, path: readonly PathKey[] = []): string {
  const keys = path.map((p) => (typeof p === 'object' ? p.key : p))
  return `[${index}]${keys.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}`
}

/**
 * The error for an item refused at `path`.
 *
 * @param path - where, from the item's index (`[2].callId`)
 * @param problem - what is wrong
 * @param cause - the schema's error, if any
 * @returns the error to throw
 */
export function invalidItem(path: string, problem: string, cause?: unknown): ContextLedgerError {
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid item at ${path}: ${problem}`, {
    path,
    ...(cause === undefined ? {} : { cause }),
  })
}

const BY_TYPE: Readonly<Record<string, z.ZodType>> = {
  function_call: protocol.FunctionCallItem,
  function_call_result: protocol.FunctionCallResultItem,
  computer_call: protocol.ComputerUseCallItem,
  computer_call_result: protocol.ComputerCallResultItem,
  shell_call: protocol.ShellCallItem,
  shell_call_output: protocol.ShellCallResultItem,
  apply_patch_call: protocol.ApplyPatchCallItem,
  apply_patch_call_output: protocol.ApplyPatchCallResultItem,
  program: protocol.ProgramCallItem,
  program_output: protocol.ProgramCallResultItem,
  hosted_tool_call: protocol.HostedToolCallItem,
  tool_search_call: protocol.ToolSearchCallItem,
  tool_search_output: protocol.ToolSearchOutputItem,
  reasoning: protocol.ReasoningItem,
  compaction: protocol.CompactionItem,
  unknown: protocol.UnknownItem,
}

/** The schema an item is checked against: by its type, a message (no type) by its role. */
function schemaOf(item: Record<string, unknown>): z.ZodType | string {
  const type = item.type
  if (type === undefined || type === 'message') {
    if (item.role === 'user') return protocol.UserMessageItem
    if (item.role === 'assistant') return protocol.AssistantMessageItem
    // The SDK keeps its system message schema private; the union knows it.
    if (item.role === 'system') return protocol.MessageItem
    return `expected role "user", "assistant" or "system", got ${describeValue(item.role)}`
  }
  if (typeof type !== 'string') return `expected a string type, got ${describeValue(type)}`
  return BY_TYPE[type] ?? `unknown item type "${type}"`
}

/**
 * Checks items with the SDK's schemas.
 *
 * @param items - what the caller gave
 * @returns the items, as given
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
 */
export function checkItems(items: unknown): readonly Record<string, unknown>[] {
  if (!Array.isArray(items))
    throw invalidItem('items', `expected an array of AgentInputItems, got ${describeValue(items)}`)
  items.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalidItem(`[${i}]`, `expected an AgentInputItem object, got ${describeValue(item)}`)
    const data = (item as { providerData?: unknown }).providerData
    if (typeof data === 'object' && data !== null && Object.hasOwn(data, 'contextLedger'))
      throw invalidItem(
        `[${i}].providerData.contextLedger`,
        'this key is reserved for the ledger (its repair rows, summaries and withdrawal markers); it is never taken from an item given to the session',
      )
    const schema = schemaOf(item as Record<string, unknown>)
    const where = (item as { type?: unknown }).type === undefined ? `[${i}]` : `[${i}].type`
    if (typeof schema === 'string') throw invalidItem(where === `[${i}]` ? `[${i}].role` : where, schema)
    const parsed = schema.safeParse(item)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw invalidItem(pathOf(i, issue?.path), issue?.message ?? 'not an AgentInputItem', parsed.error)
    }
  })
  return items as Record<string, unknown>[]
}
