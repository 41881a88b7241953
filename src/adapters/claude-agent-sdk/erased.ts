/**
 * An append that counts entries the ledger holds erased as held. Retention's `prune` and a redaction
 * rewrite a stored entry in place (its uuid stays), and the SDK sends the originals again later: a batch
 * re-sent after a lost answer, `importSessionToStore` replaying the local transcript, which still holds
 * them. Compared with the stored form, such an entry is "other content under a stored uuid" and the
 * format refuses the whole batch — which the SDK then drops, new entries with it. So when an append is
 * refused for a reused uuid, the entries whose uuid names an erased row (a `redact` edit in the session's
 * log) are left out, as already held — the erasure stands, the copy cannot be compared with what it
 * erased — and the rest is appended. Other content under a uuid kept whole is still refused.
 */
import { ContextLedgerError, isContextLedgerError } from '../../errors.js'
import type { ManagerAppendOptions } from '../../manager/manager-options.js'
import { isRecord } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort } from '../port.js'

/**
 * A refusal of a shortened batch, with the entry's place in the batch as it was sent.
 *
 * @param error - what the append of the shortened batch threw
 * @param indexOf - `indexOf[i]`: the place in the batch sent of the shortened batch's entry `i`
 * @returns the error, its path naming the entry's place in the batch sent
 */
export function rebased(error: unknown, indexOf: readonly number[]): unknown {
  if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE')) return error
  const match = /^\[(\d+)\](.*)$/.exec(error.path ?? '')
  if (match === null) return error
  const path = `[${indexOf[Number(match[1])] ?? match[1]}]${match[2] ?? ''}`
  return new ContextLedgerError('DUPLICATE_MESSAGE', error.message.replace(error.path ?? '', path), {
    path,
    cause: error,
    ...(error.sessionId === undefined ? {} : { sessionId: error.sessionId }),
  })
}

/**
 * Appends a batch; when it is refused for a reused uuid, appends it again without the entries the session
 * holds erased (see the module comment).
 *
 * @param port - the transcript's session
 * @param batch - the entries
 * @param options - the append's options (the sidecar fold)
 * @returns the entries the append returned (none for those left out)
 * @throws ContextLedgerError what the append throws; `DUPLICATE_MESSAGE` at the entry's place in `batch`
 */
export async function appendHoldingErased(
  port: LedgerPort,
  batch: readonly unknown[],
  options: ManagerAppendOptions,
): Promise<LedgerEntry[]> {
  try {
    return await port.append(batch, options)
  } catch (error) {
    if (!isContextLedgerError(error, 'DUPLICATE_MESSAGE')) throw error
    const erased = new Set((await port.edits()).filter((e) => e.kind === 'redact').map((e) => e.trackingId))
    const kept = batch.flatMap((entry, i) =>
      isRecord(entry) && typeof entry.uuid === 'string' && erased.has(entry.uuid) ? [] : [i],
    )
    if (kept.length === batch.length) throw error
    if (kept.length === 0) return []
    try {
      return await port.append(
        kept.map((i) => batch[i]),
        options,
      )
    } catch (again) {
      throw rebased(again, kept)
    }
  }
}
