/**
 * The `openai-agents` format: the OpenAI Agents SDK's `AgentInputItem`s (Responses-API items: messages,
 * function / computer / shell / apply-patch / program calls and their results, hosted tool calls, tool
 * search, reasoning, compaction, unknown items), stored exactly as given. The ledger's notes live in
 * `providerData.contextLedger`; withdrawal markers (`control.ts`) are control notes a caller may write. A
 * marker that records an operation is identified by it (`op:<id>`); any other item gets an id the ledger
 * mints. The format has no pin flag but a marker's own. Imports no framework.
 */
import { readNotes } from '../ai-sdk-common.js'
import type { MessageFormat } from '../types.js'
import { withdrawalOf } from './control.js'
import { agentFacts, agentText, agentTokens } from './derive.js'
import { agentDisplay } from './display.js'
import { agentLateForm, agentRedact, agentRepair, agentSummary } from './rewrite.js'
import { snapshotAgentItem } from './schema.js'
import { truncateAgentItem } from './truncate.js'
import type { AgentItemData } from './types.js'

export type * from './types.js'
export { withdrawalMarker, withdrawalOf, markerText } from './control.js'
export { expandRepair } from './rewrite.js'

/** The key of what must match for a retried append to be a no-op: the item without its provider data. */
function contentKey(item: AgentItemData): string {
  const { providerData: _data, ...rest } = item
  const marker = withdrawalOf(item)
  return JSON.stringify(marker === undefined ? rest : { ...rest, marker })
}

/** The `openai-agents` message format (see the module comment and the functions it calls). */
export const openaiAgentsFormat: MessageFormat<AgentItemData> = Object.freeze({
  name: 'openai-agents',
  snapshot: snapshotAgentItem,
  idOf: (item: AgentItemData) => {
    const operation = withdrawalOf(item)?.operation
    return operation === undefined ? undefined : `op:${operation.id}`
  },
  uniqueIds: false,
  callIdsOnce: true,
  splitSteps: true,
  withId: (item: AgentItemData) => item,
  facts: agentFacts,
  contentKey,
  text: agentText,
  estimateTokens: agentTokens,
  notesOf: (item: AgentItemData) => readNotes(item.providerData),
  repair: agentRepair,
  lateForm: agentLateForm,
  redact: (item: AgentItemData, redactedText: string) => agentRedact(item, redactedText),
  prune: (item: AgentItemData, redactedText: string) => agentRedact(item, redactedText, true),
  summary: agentSummary,
  display: agentDisplay,
  truncate: truncateAgentItem,
  prompt: (text: string): AgentItemData => ({ role: 'user', content: [{ type: 'input_text', text }] }),
  show: (item: AgentItemData) => item,
})
