/**
 * The agent-loop side of a `'model'` session: `prepareStep` archives what the previous steps produced and
 * gives the step the window; `onStepEnd` archives each step as it ends (so the final step is archived
 * without a call after the loop).
 */
import type { ModelMessage } from 'ai'
import type { Archive } from './archive.js'

/** What {@link LedgerSession.prepareStep} reads of the AI SDK's `prepareStep` options. */
export interface PrepareStepInput {
  /** The messages the call started with. */
  readonly initialMessages: readonly ModelMessage[]
  /** The response messages of the previous steps of this call. */
  readonly responseMessages: readonly ModelMessage[]
}

/** What {@link LedgerSession.onStepEnd} reads of the AI SDK's step event. */
export interface StepEndInput {
  /** The step's response. */
  readonly response: { readonly messages: readonly ModelMessage[] }
}

/** How the loop reaches the session. */
export interface LoopContext {
  /** The session's writer. */
  readonly archive: Archive
  /** Checks ModelMessages for the ledger. */
  readonly check: (messages: unknown[]) => readonly unknown[]
  /** The window as ModelMessages (call inside `archive.serial`). */
  readonly window: () => Promise<ModelMessage[]>
  /** Whether a message object came out of the ledger (a window read). */
  readonly fromLedger: (message: unknown) => boolean
}

/**
 * The `prepareStep` function: archives the call's new input (initial messages that did not come from
 * the ledger, a `system` message aside) and the previous steps' response messages, each once, applies
 * the window limits and returns `{ messages }` = the system messages the call was given, then the window.
 *
 * @param context - the session
 * @returns the function to pass as `prepareStep`
 */
export function prepareStepOf(
  context: LoopContext,
): (options: PrepareStepInput) => Promise<{ messages: ModelMessage[] }> {
  return (options) =>
    context.archive.serial(async () => {
      const system = options.initialMessages.filter((m) => m.role === 'system')
      const input = options.initialMessages.filter((m) => m.role !== 'system' && !context.fromLedger(m))
      await context.archive.write([...input, ...options.responseMessages], context.check)
      return { messages: [...system, ...(await context.window())] }
    })
}

/**
 * The `onStepEnd` function: archives the step's response messages (once, whatever else archived them).
 *
 * @param context - the session
 * @returns the function to pass as `onStepEnd`
 */
export function onStepEndOf(context: LoopContext): (event: StepEndInput) => Promise<void> {
  return (event) =>
    context.archive.serial(async () => {
      await context.archive.write(event.response.messages, context.check)
    })
}
