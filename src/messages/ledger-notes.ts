/**
 * The values of the notes the library writes on messages it wrote or rewrote (a Strands message carries
 * them under `metadata.custom.contextLedger`; each format says where its own go).
 */

/** The value of the `repair` note on a repair row (see store/interrupted-tool-results.ts). */
export const MISSING_TOOL_RESULT_REPAIR = 'missing-tool-result'

/** The metadata a Strands summary message carries, so whoever reads a window can tell it from the messages. */
export const SUMMARY_MARKER = Object.freeze({ custom: { contextLedger: { summary: true } } })

/**
 * Whether a Strands window message is a summary the ledger made.
 *
 * @param message - a window message
 * @returns true for a summary message
 */
export function isSummaryMessage(message: { metadata?: unknown }): boolean {
  const m = message.metadata as { custom?: { contextLedger?: { summary?: unknown } } } | undefined
  return m?.custom?.contextLedger?.summary === true
}
