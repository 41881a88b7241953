/**
 * Canonical JSON: object keys sorted, so equal values give equal text whatever their key order (the
 * OpenAI Agents history transactions' digests, the LangChain adapter's comparison of a message it meets
 * again with the one stored under its id).
 */

/**
 * JSON with object keys sorted.
 *
 * @param value - a JSON value
 * @returns its canonical text
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )
}
