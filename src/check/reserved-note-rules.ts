/**
 * The library's reserved notes (`metadata.custom.contextLedger`: `pruned`, `repair`, `summary`,
 * `mergedFrom`; `reserved-notes.ts`) in the archive: the API strips them from every body a caller gives,
 * and the library acts on them (retention skips a body marked `pruned`), so a row may carry one only in
 * the exact form the library writes it — else an import could forge one (a "pruned" body still holding
 * its text, which retention would then never erase):
 *
 * - `pruned`: the body is its own pruned form (`prunedForm`: role, trackingId and tool ids, every
 *   content `[redacted]`, the pin flag and a repair note kept), the form retention writes;
 * - `repair`: the body is the store's repair row for the tool ids it answers (`interrupted-tool-results.ts`:
 *   a user message of `error` results with the fixed text), as written, or redacted / pruned since;
 * - `summary`, `mergedFrom`: never in an archived body (a summary lives in the summaries table, a merged
 *   message only in an alternating window, built when it is read);
 * - a window form carries the body's metadata unchanged (`late-tool-results.ts` rewrites only blocks).
 *
 * The pin flag is left to the pin rules (`log-rows.ts`): it is compared here only as part of the body.
 */
import { isDeepStrictEqual } from 'node:util'
import { withPinFlag, hasPinFlag } from '../messages/pin-flag.js'
import { redactedForm } from '../messages/redact.js'
import type { JsonValue, StoredMessageData } from '../messages/types.js'
import { prunedForm } from '../store/retention-options.js'
import { hasPrunedNote } from '../messages/reserved-notes.js'
import {
  INTERRUPTED_TOOL_RESULT_TEXT,
  MISSING_TOOL_RESULT_REPAIR,
} from '../store/interrupted-tool-results.js'

/** The reserved notes of a body, or undefined when it has none. */
function notesOf(message: StoredMessageData): Record<string, JsonValue> | undefined {
  const notes = message.metadata?.custom?.contextLedger
  return typeof notes === 'object' && notes !== null && !Array.isArray(notes) ? notes : undefined
}

/** The repair row the store writes answering `message`'s tool results, as first written. */
function repairRow(message: StoredMessageData): StoredMessageData {
  return {
    role: 'user',
    content: message.content.map((b) => ({
      toolResult: {
        toolUseId: 'toolResult' in b ? b.toolResult.toolUseId : '',
        status: 'error',
        content: [{ text: INTERRUPTED_TOOL_RESULT_TEXT }],
      },
    })),
    trackingId: message.trackingId,
    metadata: { custom: { contextLedger: { repair: MISSING_TOOL_RESULT_REPAIR } } },
  }
}

/**
 * Why an archived body carries a reserved note the library could not have written there.
 *
 * @param message - the archived body (validated)
 * @returns the reason, or undefined when its notes are the library's own (or it has none)
 */
export function forgedNote(message: StoredMessageData): string | undefined {
  const notes = notesOf(message)
  if (notes === undefined) return undefined
  for (const key of ['summary', 'mergedFrom'])
    if (key in notes) return `carries the ${key} note, which no archived body holds`
  if ('repair' in notes) {
    const written = withPinFlag(repairRow(message), hasPinFlag(message))
    const forms = [written, redactedForm(written), prunedForm(written)]
    if (!forms.some((f) => isDeepStrictEqual(f, message)))
      return 'carries the repair note, and is not the repair row the store writes'
  } else if ('pruned' in notes && !isDeepStrictEqual(prunedForm(message), message))
    return 'carries the pruned note, and is not the pruned form retention writes'
  return undefined
}

/**
 * Why a window form's metadata is not its body's (the window form only rewrites blocks).
 *
 * @param message - the archived body
 * @param windowMessage - its window form
 * @returns the reason, or undefined when they agree
 */
export function windowMetadataProblem(
  message: StoredMessageData,
  windowMessage: StoredMessageData,
): string | undefined {
  return isDeepStrictEqual(message.metadata, windowMessage.metadata)
    ? undefined
    : 'the window form carries other metadata than the body (a pin flag or a note the body lacks)'
}

/**
 * Why a pruned message has a window form, if it may not: retention's erasure rebuilds the window form
 * from the pruned body, which leaves none but a late result's (it quotes the result). Any other window
 * form of a pruned message holds text retention would never erase again (it skips what it pruned).
 *
 * @param e - the message: its body, window form and whether it is a late result
 * @returns the reason, or undefined when the window form may be there
 */
export function prunedWindowProblem(e: {
  readonly message: StoredMessageData
  readonly windowMessage?: StoredMessageData | undefined
  readonly late: boolean
}): string | undefined {
  return hasPrunedNote(e.message) && e.windowMessage !== undefined && !e.late
    ? 'a pruned message has a window form (retention leaves none), which keeps text retention never erases'
    : undefined
}
