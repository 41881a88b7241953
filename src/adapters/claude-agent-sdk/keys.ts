/**
 * The SDK's `SessionKey` (`projectKey`, `sessionId`, optional `subpath`) checked, and mapped to the ledger
 * session that holds its transcript: `${prefix}${enc(projectKey)}/${enc(sessionId)}[/${subpath}]` with
 * `enc = encodeURIComponent` (so a `/` in a project key or session id cannot be mistaken for the
 * separator; the subpath is the rest, kept as it is). An id past the ledger's 256-character limit becomes
 * a readable head and a SHA-256 of the whole id. The key's parts are kept in the session's metadata too
 * (see sidecar.ts), so nothing ever parses an id back.
 */
import { createHash } from 'node:crypto'
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk'
import { describeValue } from '../../messages/limits.js'
import { invalidOption, isRecord, SESSION_ID_MAX } from '../../store/check-args.js'

/** A key checked: its parts as given (`subpath` only on a subagent transcript). */
export interface CheckedKey {
  /** The project (the SDK's default: the sanitized cwd). */
  readonly projectKey: string
  /** The SDK's session id. */
  readonly sessionId: string
  /** The subagent transcript's subpath; undefined for the main transcript. */
  readonly subpath?: string
}

/** Separates the readable head of a hashed id from its SHA-256 (hex). */
const HASH_MARK = '~'
/** Characters of a SHA-256 in hex. */
const HASH_LENGTH = 64

function checkPart(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || !value.isWellFormed())
    throw invalidOption(field, `expected a non-empty, well-formed string, got ${describeValue(value)}`)
  return value
}

/**
 * Checks a `SessionKey`.
 *
 * @param key - what the SDK (or a caller) passed
 * @param field - how the error names it (`key`)
 * @returns its parts
 * @throws ContextLedgerError `INVALID_OPTIONS` naming `key`, `key.projectKey`, `key.sessionId` or
 *   `key.subpath` (an empty string is refused there: the main transcript has no subpath)
 */
export function checkKey(key: unknown, field = 'key'): CheckedKey {
  if (!isRecord(key))
    throw invalidOption(
      field,
      `expected a SessionKey { projectKey, sessionId, subpath? }, got ${describeValue(key)}`,
    )
  const projectKey = checkPart(key.projectKey, `${field}.projectKey`)
  const sessionId = checkPart(key.sessionId, `${field}.sessionId`)
  if (key.subpath === undefined) return { projectKey, sessionId }
  if (key.subpath === '')
    throw invalidOption(
      `${field}.subpath`,
      'expected a non-empty string or no subpath at all: the main transcript has none, and an empty string is invalid (SessionKey)',
    )
  return { projectKey, sessionId, subpath: checkPart(key.subpath, `${field}.subpath`) }
}

/**
 * Checks a project key given alone (`listSessions(projectKey)`).
 *
 * @param projectKey - what was passed
 * @param field - how the error names it
 * @returns it
 * @throws ContextLedgerError `INVALID_OPTIONS` naming `projectKey`
 */
export function checkProjectKey(projectKey: unknown, field = 'projectKey'): string {
  return checkPart(projectKey, field)
}

/** A main key's parts alone (`listSubkeys`, `delete` of a main transcript). */
export const mainOf = (key: CheckedKey): CheckedKey => ({
  projectKey: key.projectKey,
  sessionId: key.sessionId,
})

/**
 * The ledger session id of a key.
 *
 * @param prefix - the store's prefix ('' by default)
 * @param key - a checked key
 * @returns the id: the key's parts, or when that is longer than the ledger allows, its first characters
 *   and the SHA-256 of all of it
 */
export function ledgerIdOf(prefix: string, key: CheckedKey): string {
  const main = `${prefix}${encodeURIComponent(key.projectKey)}/${encodeURIComponent(key.sessionId)}`
  const id = key.subpath === undefined ? main : `${main}/${key.subpath}`
  if (id.length <= SESSION_ID_MAX) return id
  let head = id.slice(0, SESSION_ID_MAX - HASH_LENGTH - HASH_MARK.length)
  // Never cut a surrogate pair in two: the id must stay well-formed.
  if (!head.isWellFormed()) head = head.slice(0, -1)
  return `${head}${HASH_MARK}${createHash('sha256').update(id).digest('hex')}`
}

/**
 * Whether two keys name the same transcript.
 *
 * @param a - a key
 * @param b - another
 * @returns true when every part is equal
 */
export function sameKey(a: CheckedKey, b: CheckedKey): boolean {
  return a.projectKey === b.projectKey && a.sessionId === b.sessionId && a.subpath === b.subpath
}

/** The SDK's type, for the class's signatures. */
export type { SessionKey }
