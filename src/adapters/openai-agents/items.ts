/**
 * The item shape the adapter reads: an `AgentInputItem` seen as plain JSON (the format module validated
 * it on the way in), with the few fields the adapter looks at typed.
 */
import type { AgentInputItem } from '@openai/agents'

/** An item as plain JSON, with the fields the adapter reads. */
export type AgentItem = {
  readonly type?: string | undefined
  readonly role?: string | undefined
  readonly callId?: string | undefined
  readonly providerData?: Record<string, unknown> | undefined
} & Record<string, unknown>

/**
 * The item as the SDK's type.
 *
 * @param item - an item read from the ledger
 * @returns the same object, typed
 */
export const asInput = (item: AgentItem): AgentInputItem => item as unknown as AgentInputItem
