/**
 * `applyHistoryTransaction` on the ledger. The SDK's contract: the operation id is stored atomically with
 * the change, a retry with the same id and transaction is a no-op, the same id with another transaction —
 * or a suffix that no longer matches — fails and changes nothing.
 *
 * The operation's id and a SHA-256 digest of the transaction are an operation marker row, written in the
 * same transaction as the change. On a store with branches a `replace_suffix` rewinds the session to
 * before the replaced items — they leave as an abandoned branch (`branches()` lists it, `search` finds
 * it) — and appends the marker and the replacement after what stays, in one transaction (`rewind.ts`). On
 * a store without branches (and for `append_items`) it is one append: the marker withdraws the replaced
 * items from what the model sees, which the archive keeps. Either write is guarded by what was read
 * before deciding, so a writer that slipped in between — another process running the same operation
 * included — makes it fail with nothing written, and it is read and decided again. An operation is
 * found again in the session or in a branch the session abandoned (a later replace may have taken its
 * marker along).
 */
import { createHash } from 'node:crypto'
import { ContextLedgerError, isContextLedgerError } from '../../errors.js'
import { describeValue } from '../../messages/limits.js'
import { withdrawalMarker, withdrawalOf } from '../../formats/openai-agents/index.js'
import { canonical } from '../canonical.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort, Rewinder } from './branching.js'
import type { AgentItem } from './items.js'
import { leaveFrom, readHead, type Head, type View } from './rewind.js'
import { checkItems } from './validate.js'
import { callSeqs, danglingCalls, mergeRanges } from './rewind-plan.js'
import { RESULT_TYPES, visibleItems, type VisibleItem } from './visible.js'

export { canonical } from '../canonical.js'

/**
 * How often a write (a transaction, `popItem`) is read and decided again when other writers keep moving
 * the session; past it, the `APPEND_CONFLICT` of the last attempt is thrown.
 */
export const ATTEMPTS = 8

/** A checked transaction and its digest. */
interface Checked {
  readonly operationId: string
  readonly digest: string
  readonly append: readonly Record<string, unknown>[]
  readonly expectedSuffix: readonly Record<string, unknown>[] | undefined
}

/** The error for a transaction refused before anything is read. */
const badTransaction = (path: string, problem: string): ContextLedgerError =>
  new ContextLedgerError('INVALID_OPTIONS', `Invalid history transaction: ${problem}`, { path })

/** The error for an operation that cannot be applied: nothing was changed. */
export const historyConflict = (sessionId: string, problem: string): ContextLedgerError =>
  new ContextLedgerError(
    'HISTORY_CONFLICT',
    `History transaction refused for session "${sessionId}": ${problem}; nothing was changed`,
    { path: 'transaction' },
  )

/** Checks the SDK's arguments (operation id, transaction kind, items) and digests the transaction. */
function check(args: unknown): Checked {
  if (typeof args !== 'object' || args === null)
    throw badTransaction('args', `expected an object, got ${describeValue(args)}`)
  const { operationId, transaction } = args as Record<string, unknown>
  if (typeof operationId !== 'string' || operationId.trim() === '' || operationId.length > 256)
    throw badTransaction('operationId', 'expected a non-empty string of at most 256 characters')
  if (typeof transaction !== 'object' || transaction === null)
    throw badTransaction('transaction', `expected an object, got ${describeValue(transaction)}`)
  const t = transaction as unknown as Record<string, unknown>
  let snapshot: Record<string, unknown>
  try {
    snapshot = JSON.parse(JSON.stringify(t)) as Record<string, unknown>
  } catch (cause) {
    throw new ContextLedgerError('INVALID_OPTIONS', 'Invalid history transaction: not JSON', {
      path: 'transaction',
      cause,
    })
  }
  if (t.type === 'append_items') {
    const items = checkItems(snapshot.items)
    return { operationId, digest: digest(snapshot), append: items, expectedSuffix: undefined }
  }
  if (t.type === 'replace_suffix') {
    const expected = checkItems(snapshot.expectedSuffix)
    const replacement = checkItems(snapshot.replacement)
    return { operationId, digest: digest(snapshot), append: replacement, expectedSuffix: expected }
  }
  throw badTransaction(
    'transaction.type',
    `expected "append_items" or "replace_suffix", got ${describeValue(t.type)}`,
  )
}

const digest = (snapshot: unknown): string => createHash('sha256').update(canonical(snapshot)).digest('hex')

/** Half-open seq ranges covering the seqs (ascending, merged). */
export function rangesOf(seqs: readonly number[]): [number, number][] {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b)
  const out: [number, number][] = []
  for (const s of sorted) {
    const last = out.at(-1)
    if (last !== undefined && last[1] === s) last[1] = s + 1
    else out.push([s, s + 1])
  }
  return out
}

/**
 * The marker that withdraws `replaced` (pinned when one of them is pinned, so it outlives them in the
 * window), carrying the operation when there is one.
 */
export function markerFor(
  replaced: readonly VisibleItem[],
  operation?: { id: string; digest: string },
): AgentItem {
  const seqs = replaced.flatMap((v) => (v.seq === undefined ? [] : [v.seq]))
  const pinned = replaced.some((v) => v.pinned)
  return withdrawalMarker({ seqs: rangesOf(seqs) }, operation, pinned)
}

/** Whether the stored suffix equals the expected one, item by item, as canonical JSON. */
const sameItems = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && a.every((x, i) => canonical(x) === canonical(b[i]))

/** The replaced items: the newest `expected.length` shown, when they equal `expected`. */
function suffixOf(
  sessionId: string,
  shown: readonly VisibleItem[],
  expected: readonly unknown[],
): VisibleItem[] {
  const k = expected.length
  const replaced = k === 0 ? [] : shown.slice(-k)
  if (
    replaced.length !== k ||
    !sameItems(
      replaced.map((v) => v.item),
      expected,
    )
  )
    throw historyConflict(sessionId, "the expected suffix does not match the session's newest items")
  if (replaced.some((v) => v.seq === undefined))
    throw historyConflict(sessionId, 'the suffix reaches back into the summary, which cannot be replaced')
  return replaced
}

/** Writes the change: see the module's header. */
async function write(
  port: LedgerPort,
  rewind: Rewinder | undefined,
  head: Head,
  change: { t: Checked; replaced: readonly VisibleItem[]; view: View },
): Promise<void> {
  const { t, replaced, view } = change
  const operation = { id: t.operationId, digest: t.digest }
  if (rewind === undefined) {
    await port.append([markerFor(replaced, operation), ...t.append], { expectCount: head.count })
    return
  }
  const guard = { expectCount: head.count, expectNewest: head.newest }
  const first = replaced[0]?.seq
  if (first === undefined) {
    await rewind(guard, [markerFor([], operation), ...t.append])
    return
  }
  const from = Math.min(...replaced.map((v) => v.seq ?? first))
  // A call whose result leaves and that the replacement does not answer would be shown alone.
  const answered = new Set(
    t.append.flatMap((i) =>
      RESULT_TYPES.has(String(i.type)) && typeof i.callId === 'string' ? [i.callId] : [],
    ),
  )
  const dangling = danglingCalls(view.shown, from, callSeqs(view.entries), answered)
  await leaveFrom(
    port,
    rewind,
    head,
    from,
    view,
    (carried) => {
      // Pinned when a withdrawn call is: the marker stays in the window as long as the call does.
      const pinned = view.shown.some(
        ({ seq, pinned }) => pinned && seq !== undefined && dangling.some(([a, b]) => seq >= a && seq < b),
      )
      const seqs = mergeRanges([...carried.seqs, ...dangling])
      return withdrawalMarker({ seqs }, operation, carried.pinned || pinned)
    },
    t.append,
    { actor: 'agent', reason: `replace_suffix (operation ${t.operationId})` },
  )
}

/**
 * Applies a history transaction (see the module's header).
 *
 * @param port - the session
 * @param branches - the session's branches, or undefined on a store without them (without
 *   `rewindAppend`, a replaced suffix is withdrawn by the marker)
 * @param sessionId - its id, for errors
 * @param args - the SDK's `{ operationId, transaction }`
 * @returns whether anything was written (false for a retry of an applied operation)
 * @throws ContextLedgerError `HISTORY_CONFLICT` (the id was used for another transaction, or the suffix
 *   does not match), `INVALID_OPTIONS` / `INVALID_MESSAGE` (bad arguments); nothing is written
 */
export async function applyTransaction(
  port: LedgerPort,
  branches: BranchPort | undefined,
  sessionId: string,
  args: unknown,
): Promise<boolean> {
  const t = check(args)
  const id = `op:${t.operationId}`
  for (let attempt = 1; ; attempt++) {
    const head = await readHead(port, branches?.rewindAppend)
    const applied = branches === undefined ? await port.byTrackingId(id) : await branches.findKept(id)
    if (applied !== undefined) {
      const note = withdrawalOf(applied.message)
      if (note?.operation?.digest === t.digest) return false
      throw historyConflict(
        sessionId,
        `operation "${t.operationId}" was already applied with another transaction`,
      )
    }
    const entries = await port.windowEntries()
    const shown = visibleItems(entries)
    const replaced = t.expectedSuffix === undefined ? [] : suffixOf(sessionId, shown, t.expectedSuffix)
    try {
      await write(port, branches?.rewindAppend, head, { t, replaced, view: { entries, shown } })
      return true
    } catch (error) {
      if (!isContextLedgerError(error, 'APPEND_CONFLICT') || attempt >= ATTEMPTS) throw error
    }
  }
}
