/**
 * Tracking ids the ledger mints: time-ordered UUIDs (version 7, RFC 9562), monotonic within a process.
 *
 * Why not random ones: the trackingId index is keyed `(session, trackingId)`. A random UUID (version 4)
 * lands on a random leaf of it, so every append dirtied one more page, and a checkpoint copied one more,
 * than the append itself needed — the one B-tree whose pages written per turn grew with the history. A
 * time-ordered id lands on the session's last leaf, where the previous one went.
 */
import { randomUUID } from 'node:crypto'

/** The newest minted id's milliseconds and its counter within them (RFC 9562 method 1, 12 bits). */
let lastMs = 0
let counter = 0

/**
 * Mints a trackingId: a UUID version 7 — 48 bits of milliseconds, a 12-bit counter within them, then
 * the random bits (and variant) of a `crypto.randomUUID()` — greater than every id minted before it in
 * this process. Node serves `randomUUID()` from a cached pool of entropy; the `uuid` package draws 16
 * bytes from the system per id, which cost ~9% of an append.
 *
 * @returns a new lowercase UUID string
 */
export function mintTrackingId(): string {
  const now = Date.now()
  if (now > lastMs) {
    lastMs = now
    counter = 0
  } else if (++counter > 0xfff) {
    // More than 4,096 ids in one millisecond, or the clock went back: borrow the next millisecond.
    lastMs++
    counter = 0
  }
  const ms = lastMs.toString(16).padStart(12, '0')
  const random = randomUUID()
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${counter.toString(16).padStart(3, '0')}-${random.slice(19)}`
}

const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Whether `id` is a random UUID (version 4, lowercase, as `crypto.randomUUID()` and Strands mint them):
 * an id that carries nothing but its uniqueness.
 *
 * @param id - a trackingId
 * @returns true for a lowercase version-4 UUID
 */
export function isRandomUuid(id: string): boolean {
  return RANDOM_UUID.test(id)
}
