/**
 * What a transcript's ledger session keeps in its `metadata` column under `claudeAgent`: the key's parts
 * (so listing reads them instead of parsing ids) and, for a main transcript, the SDK's incrementally kept
 * `SessionSummaryEntry` (`listSessionSummaries`). The fold runs inside the append's write transaction
 * (the core's `sessionMetadata` option), so the sidecar moves with the rows: two processes appending to
 * one session never lose a fold.
 */
import {
  foldSessionSummary,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from '@anthropic-ai/claude-agent-sdk'
import { ContextLedgerError } from '../../errors.js'
import { isRecord } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import { readForkRecord, type ForkRecord } from './fork-record.js'
import { sameKey, type CheckedKey } from './keys.js'

/** The adapter's part of a session's metadata. */
export interface ClaudeAgentSidecar extends CheckedKey {
  /** The SDK's summary of a main transcript, folded over every entry written. */
  readonly summary?: SessionSummaryEntry
  /** A fork's record (fork-record.ts): how `load` gives the entries it shares with its parent. */
  readonly fork?: ForkRecord
}

/** The metadata key the adapter owns; other keys of the column are kept as they are. */
export const SIDECAR_KEY = 'claudeAgent'

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0

function readSummary(value: unknown): SessionSummaryEntry | undefined {
  if (!isRecord(value) || !isText(value.sessionId) || !isRecord(value.data)) return undefined
  if (typeof value.mtime !== 'number' || !Number.isFinite(value.mtime)) return undefined
  return value as SessionSummaryEntry
}

/**
 * The adapter's sidecar in a session's metadata.
 *
 * @param metadata - the session's `metadata` (anything: another writer may have put something else there)
 * @returns the sidecar, or undefined when there is none or it is not one
 */
export function readSidecar(metadata: unknown): ClaudeAgentSidecar | undefined {
  const sidecar = isRecord(metadata) ? metadata[SIDECAR_KEY] : undefined
  if (!isRecord(sidecar) || !isText(sidecar.projectKey) || !isText(sidecar.sessionId)) return undefined
  if (sidecar.subpath !== undefined && !isText(sidecar.subpath)) return undefined
  const summary = readSummary(sidecar.summary)
  const fork = readForkRecord(sidecar.fork)
  return {
    projectKey: sidecar.projectKey,
    sessionId: sidecar.sessionId,
    ...(sidecar.subpath === undefined ? {} : { subpath: sidecar.subpath }),
    ...(summary === undefined ? {} : { summary }),
    ...(fork === undefined ? {} : { fork }),
  }
}

/**
 * The `sessionMetadata` callback of an append to `key`'s session: records the key on the first write and,
 * for a main transcript, folds the entries this append newly wrote into the summary with
 * `mtime = max(now, previous mtime + 1)` (integer ms, never going back). Entries a retry re-sent, already
 * stored, are not folded again; a write of nothing new leaves the metadata as it is. Pure, as the core
 * asks: PostgreSQL may run it again on a retried transaction.
 *
 * @param key - the transcript
 * @returns the callback
 */
export function sidecarFold(
  key: CheckedKey,
): (previous: unknown, written: readonly LedgerEntry[], now: number) => unknown {
  return (previous, written, now) => {
    const prev = readSidecar(previous)
    if (prev !== undefined && !sameKey(prev, key))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `The ledger session holds the transcript of another key (${JSON.stringify(prev)}); nothing was written`,
        { path: 'key' },
      )
    if (prev !== undefined && (written.length === 0 || key.subpath !== undefined)) return undefined
    const parts: CheckedKey = { ...key }
    const summary =
      key.subpath === undefined
        ? foldSessionSummary(
            prev?.summary,
            { ...key },
            written.map((e) => e.message as unknown as SessionStoreEntry),
            { mtime: Math.max(Math.floor(now), (prev?.summary?.mtime ?? 0) + 1) },
          )
        : undefined
    const rest = isRecord(previous) ? previous : {}
    const fork = prev?.fork === undefined ? {} : { fork: prev.fork }
    return { ...rest, [SIDECAR_KEY]: { ...parts, ...(summary === undefined ? {} : { summary }), ...fork } }
  }
}
