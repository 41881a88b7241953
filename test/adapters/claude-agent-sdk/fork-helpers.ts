/**
 * What the fork tests share: a transcript's "shape" — its entries with every id and time the fork made
 * up replaced by placeholders — so a ledger fork (uuids by the fork rule) and the SDK's own fork on
 * `InMemorySessionStore` (fresh random uuids, another session id, another instant) compare as equal
 * exactly when they hold the same entries with the same links between them; the ledger's row counts; a
 * CLI-style copy for a resume with `forkSession: true`.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import type { LedgerStore } from '../../helpers/backend.js'
import type { Backend } from '../../helpers/backend.js'

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

/** Every string of a value. */
function stringsOf(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') into.add(value)
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into)
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) stringsOf(v, into)
  return into
}

/**
 * A forked transcript, as JSON, with the ids and instants the fork made up (UUID-shaped strings and ISO
 * instants found nowhere in its parent) replaced by `#1`, `#2`… in order of first appearance, and `T`.
 *
 * @param entries - the fork's entries
 * @param parent - its parent's entries
 * @returns the shape
 */
export function shapeOf(entries: readonly unknown[] | null, parent: readonly unknown[] | null): unknown {
  const known = stringsOf(parent ?? [], new Set())
  const names = new Map<string, string>()
  const rename = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (known.has(value)) return value
      if (UUID.test(value)) {
        if (!names.has(value)) names.set(value, `#${names.size + 1}`)
        return names.get(value)
      }
      return INSTANT.test(value) ? 'T' : value
    }
    if (Array.isArray(value)) return value.map(rename)
    if (typeof value !== 'object' || value === null) return value
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]))
  }
  // As JSON: an in-memory store keeps the `undefined` fields the SDK's copy sets, the ledger stores JSON.
  return rename(JSON.parse(JSON.stringify(entries)) as unknown)
}

/** The ledger's message rows, every session's. */
export async function messageRows(backend: Backend, handle: LedgerStore): Promise<number> {
  return Number(
    await backend.scalar(handle, {
      sqlite: 'SELECT count(*) FROM messages',
      postgres: 'SELECT count(*) FROM context_ledger.messages',
    }),
  )
}

/**
 * What the CLI appends first for a session it forks on resume (`query()` with `resume` and
 * `forkSession: true`), as recorded from the real CLI: a few entries of its own, then the parent's chain
 * to `leaf` under the same uuids (the new session id; the new prompt's `promptId` on the entries that
 * have one; an answer's `requestSessionId` the parent's session), then the new turn.
 *
 * @param parent - the parent's entries
 * @param leaf - the last entry copied
 * @param sessionId - the new session's id
 * @param promptId - the new prompt's id
 * @param turn - the new turn's entries
 * @returns the batch
 */
export function cliResumeCopy(
  parent: readonly SessionStoreEntry[],
  leaf: string,
  sessionId: string,
  promptId: string,
  turn: readonly SessionStoreEntry[],
): SessionStoreEntry[] {
  const byUuid = new Map(parent.filter((e) => typeof e.uuid === 'string').map((e) => [e.uuid, e]))
  const chain: SessionStoreEntry[] = []
  for (let at = byUuid.get(leaf); at !== undefined;) {
    chain.unshift(at)
    at = typeof at.parentUuid === 'string' ? byUuid.get(at.parentUuid) : undefined
  }
  const copy = chain.map((e) => ({
    ...e,
    sessionId,
    ...('promptId' in e ? { promptId } : {}),
    ...(e.type === 'assistant' && e.requestSessionId === undefined ? { requestSessionId: e.sessionId } : {}),
  }))
  const own = [
    { type: 'mode', mode: 'normal', sessionId },
    { type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-01T00:00:00.000Z', sessionId },
  ]
  return [...own, ...copy, ...turn]
}
