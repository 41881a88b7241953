/**
 * Tracking ids the ledger mints: time-ordered UUIDs (version 7, RFC 9562), monotonic within a process.
 *
 * Why not random ones: the trackingId index is keyed `(session, trackingId)`. A random UUID (version 4)
 * lands on a random leaf of it, so every append dirtied one more page, and a checkpoint copied one more,
 * than the append itself needed — the one B-tree whose pages written per turn grew with the history. A
 * time-ordered id lands on the session's last leaf, where the previous one went.
 */
import { v7 } from 'uuid'

/**
 * Mints a trackingId: a UUID version 7, greater than every id minted before it in this process.
 *
 * @returns a new lowercase UUID string
 */
export function mintTrackingId(): string {
  return v7()
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
