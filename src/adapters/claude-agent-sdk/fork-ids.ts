/**
 * The uuid rule of a ledger fork. The SDK's `forkSession` gives every entry it copies a fresh random
 * uuid; a fork here copies nothing, so an inherited entry's uuid in the fork is computed instead — the
 * same every time, from nothing but the entry's uuid in the parent and the fork's session id:
 *
 * - a UUID (lowercase, as the CLI writes them) is XORed with a 128-bit mask made from the fork's session
 *   id (SHA-256), whose version and variant bits are zero, so a v4 UUID stays a v4 UUID. The rule is its
 *   own inverse: the fork's uuid XORed with the mask gives the parent's, which is how a fork finds the row
 *   an inherited entry comes from (to pin it, to fold a compaction over it) in O(1) lookups, with nothing
 *   stored per entry;
 * - anything else (a uuid some other writer made up) becomes a UUID hashed from it: one way only.
 *
 * A reference the SDK's copy mints for an entry it leaves out (a `progress` entry) gets a UUID hashed from
 * the fork's session id and the reference's place among such references.
 */
import { createHash } from 'node:crypto'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ANY_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * Whether a string has the shape of a UUID (either case).
 *
 * @param value - anything
 * @returns true for `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in hex digits
 */
export const isUuidShaped = (value: unknown): value is string =>
  typeof value === 'string' && ANY_UUID.test(value)

const hexOf = (uuid: string): string => uuid.replaceAll('-', '')

const uuidOf = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`

/** 16 bytes of SHA-256 of `text`, formatted as a v4 UUID (version and variant bits set). */
function hashedUuid(text: string): string {
  const bytes = createHash('sha256').update(text).digest().subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  return uuidOf(bytes.toString('hex'))
}

/** The fork's mask: 16 bytes of SHA-256, the UUID version nibble and variant bits cleared. */
function maskOf(forkSessionId: string): Buffer {
  const mask = createHash('sha256').update(`context-ledger fork ${forkSessionId}`).digest().subarray(0, 16)
  mask[6] = (mask[6] ?? 0) & 0x0f
  mask[8] = (mask[8] ?? 0) & 0x3f
  return mask
}

function xorUuid(uuid: string, mask: Buffer): string {
  const bytes = Buffer.from(hexOf(uuid), 'hex')
  for (let i = 0; i < 16; i++) bytes[i] = (bytes[i] ?? 0) ^ (mask[i] ?? 0)
  return uuidOf(bytes.toString('hex'))
}

/**
 * An inherited entry's uuid in a fork.
 *
 * @param uuid - its uuid in the parent
 * @param forkSessionId - the fork's SDK session id
 * @returns its uuid in the fork
 */
export function forkedUuid(uuid: string, forkSessionId: string): string {
  if (UUID.test(uuid)) return xorUuid(uuid, maskOf(forkSessionId))
  return hashedUuid(`context-ledger fork ${forkSessionId} id ${uuid}`)
}

/**
 * The parent's uuid of an entry a fork shows under `uuid` (the inverse of {@link forkedUuid} for a
 * lowercase UUID).
 *
 * @param uuid - a uuid in the fork
 * @param forkSessionId - the fork's SDK session id
 * @returns the parent's uuid, or undefined when `uuid` is no lowercase UUID
 */
export function parentUuid(uuid: string, forkSessionId: string): string | undefined {
  return UUID.test(uuid) ? xorUuid(uuid, maskOf(forkSessionId)) : undefined
}

/**
 * The uuid of the `k`-th reference (from 0) the SDK's copy made to an entry it left out.
 *
 * @param forkSessionId - the fork's SDK session id
 * @param k - the reference's place
 * @returns its uuid
 */
export function droppedRefUuid(forkSessionId: string, k: number): string {
  return hashedUuid(`context-ledger fork ${forkSessionId} reference ${k}`)
}
