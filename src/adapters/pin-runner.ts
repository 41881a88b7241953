/**
 * `pin_message` through a port, for every framework adapter: the core tool's input check, outcome and
 * error texts; the adapter says which message each index the model sees is (and which go with it).
 */
import type { MessageRef } from '../store/check-args.js'
import {
  checkPinMessageInput,
  describePinOutcome,
  pinErrorResult,
  type PinMessageTarget,
} from '../tools/pin-message-tool.js'
import type { LedgerPort } from './port.js'

/** The messages the model sees, as an adapter maps them to the ledger. */
export interface PortPinTarget extends PinMessageTarget {
  /** Why the message at `index` cannot be pinned, or undefined when it can (e.g. it is the summary). */
  refusal?(index: number): string | undefined
  /** Messages pinned or unpinned with the one at `index` (e.g. the reasoning items before it). */
  companions?(index: number): readonly MessageRef[]
}

/**
 * Runs `pin_message` through the port.
 *
 * @param port - the session
 * @param target - the messages the model sees
 * @param input - the tool input as the model sent it
 * @returns the text the model reads
 */
export async function runPin(port: LedgerPort, target: PortPinTarget, input: unknown): Promise<string> {
  const checked = checkPinMessageInput(input, target.count)
  if (!checked.ok) return checked.result.text
  const { index, action, reason } = checked.input
  const refusal = target.refusal?.(index)
  if (refusal !== undefined) return refusal
  const attribution = { actor: 'agent', ...(reason === undefined ? {} : { reason }) }
  try {
    const pin = await port.pin(target.resolve(index), action === 'pin', attribution)
    for (const ref of target.companions?.(index) ?? []) await port.pin(ref, action === 'pin', attribution)
    return describePinOutcome(index, action, pin.changed).text
  } catch (error) {
    const result = pinErrorResult(error, index, action)
    if (result === undefined) throw error
    return result.text
  }
}
