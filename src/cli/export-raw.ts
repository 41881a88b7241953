/**
 * An export line may carry a column's text as it is stored (`raw`: the fields whose JSON value would not
 * write back to the same text). What such a field must hold, checked as `import` reads the line.
 */
import { notStoreJson } from '../check/store-json.js'

/** The fields that hold a body: the store writes them with `JSON.stringify`, so their text is exactly that. */
const BODIES = new Set([
  'message.message',
  'message.windowMessage',
  'summary.message',
  'branchRow.windowMessage',
])

/**
 * What is wrong with the `raw` fields of an export line, if anything.
 *
 * @param line - a parsed line (or the header's session)
 * @returns the problem, e.g. `seqs is listed in raw but is not a string`; undefined when there is none
 */
export function rawProblem(line: object): string | undefined {
  const fields = line as Record<string, unknown>
  const raw = Array.isArray(fields.raw) ? (fields.raw as unknown[]) : []
  for (const field of raw.map(String)) {
    const value = fields[field]
    if (typeof value !== 'string') return `${field} is listed in raw but is not a string`
    // A body (a message's, its window form, a summary's) is always what JSON.stringify writes.
    if (BODIES.has(`${String(fields.type)}.${field}`) && notStoreJson(value))
      return `${field}: body is not the JSON the store writes (a key twice, or other spacing)`
  }
  return undefined
}
