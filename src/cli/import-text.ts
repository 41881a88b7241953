/**
 * The searchable text `import` writes beside each body (`messages.text`, `summaries.text`): derived from
 * the body by the session's format, as an append derives it, never read from the export. A Strands body
 * keeps it null (the view `search_text` reads the body itself).
 */
import { storedText, type BodyFormat } from '../formats/index.js'
import type { StoredMessageData } from '../messages/types.js'

/**
 * The text column for a body.
 *
 * @param format - the session's format
 * @param body - the body's stored JSON text
 * @returns the format's text of it; null for a Strands body, and for one the format cannot read (the
 *   check that runs before the import commits names that body)
 */
export function searchableText(format: BodyFormat, body: string): string | null {
  if (format.name === 'strands') return null
  try {
    return storedText(format, JSON.parse(body) as StoredMessageData)
  } catch {
    return null
  }
}
