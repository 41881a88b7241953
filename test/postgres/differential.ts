/**
 * Comparing what PostgreSQL and SQLite answer for the same calls: the differential tests' normal form.
 */

const MINTED = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g
/** Keys that hold a time (`at`, `createdAt`, `pinnedAt`, …). */
const TIMES = /^at$|At$/
/** Keys that hold a row's key (a PostgreSQL sequence skips the numbers a rolled-back insert took). */
const KEYS = /^sessionPk$/

/**
 * A value with its times and row keys zeroed and minted UUIDs named alike (they differ between stores by
 * design).
 *
 * @param value - what a call answered
 * @returns its normal form (undefined stays undefined: a missing session)
 */
export function norm(value: unknown): unknown {
  const text = JSON.stringify(value, (k, v: unknown) => (TIMES.test(k) || KEYS.test(k) ? 0 : v)) as
    string | undefined
  return text === undefined ? undefined : (JSON.parse(text.replace(MINTED, 'minted')) as unknown)
}
