/**
 * Which ledger manager serves which Strands agent: set when the manager attaches to the agent, read by
 * `pinMessageTool` to decide whether a pin goes to the store or only sets Strands' flag. Weak, so an
 * agent that is gone frees its entry.
 */
import type { LocalAgent } from '@strands-agents/sdk'
import type { PersistentConversationManager as LedgerManager } from '../../manager/persistent-conversation-manager.js'
import type { PinMessageToolResult } from '../../tools/pin-message-tool.js'
import type { AsyncLedgerManager } from './async-ledger.js'

/** What the registry needs of a manager: running the `pin_message` tool, and its core manager. */
export interface AttachedManager {
  /**
   * Runs `pin_message` for an agent (see the Strands `PersistentConversationManager`).
   *
   * @param agent - the agent whose messages the index refers to
   * @param input - the tool input as the model sent it
   * @returns the text for the model (a Promise of it on PostgreSQL)
   */
  runPinMessageTool(agent: LocalAgent, input: unknown): PinMessageToolResult | Promise<PinMessageToolResult>
  /** The core manager of the session, which writes the held messages before each call (the recall tools). */
  readonly ledger: LedgerManager | AsyncLedgerManager
}

const attached = new WeakMap<LocalAgent, AttachedManager>()

/**
 * Records that `manager` keeps `agent`'s conversation.
 *
 * @param agent - a Strands agent
 * @param manager - the ledger manager attached to it
 */
export function attachManager(agent: LocalAgent, manager: AttachedManager): void {
  attached.set(agent, manager)
}

/**
 * The ledger's manager for a Strands agent, when the agent uses one.
 *
 * @param agent - a Strands agent
 * @returns the manager attached by `initAgent`, or undefined
 */
export function ledgerManagerOf(agent: LocalAgent): AttachedManager | undefined {
  return attached.get(agent)
}
