/**
 * How `popItem` and `replace_suffix` take items out of a session on a store with branches: the rows from
 * the first one that leaves to the newest become an abandoned branch (the core's rewind), and what
 * continues the session is appended in the same transaction — the marker that carries on what leaving
 * markers withdrew (`rewind-plan.ts`), an operation's marker, a replacement. The write is guarded by the
 * count and the newest row read before deciding (`Head`): another writer that moved the session makes it
 * fail with nothing written, and the caller reads and decides again.
 */
import type { LedgerPort, PortWindowEntry } from '../port.js'
import type { Rewinder } from './branching.js'
import type { AgentItem } from './items.js'
import { callSeqs, carriedOver, type Carried } from './rewind-plan.js'
import type { VisibleItem } from './visible.js'

/** What the model sees, and the window rows it is made from. */
export interface View {
  /** The window's rows. */
  readonly entries: readonly PortWindowEntry[]
  /** What the model sees (`visibleItems(entries)`). */
  readonly shown: readonly VisibleItem[]
}

/** What a write is guarded by: the session's message count and its newest row. */
export interface Head {
  /** Messages the session holds (its whole conversation, inherited rows included). */
  readonly count: number
  /** The newest message's trackingId (undefined for an empty session, or on a store without branches). */
  readonly newest: string | undefined
}

/** Who takes the items out, and why: recorded on the abandoned branch. */
export interface Why {
  /** Who (`branches()` shows it as the branch's actor). */
  readonly actor?: string | undefined
  /** Why (free text). */
  readonly reason: string
}

/**
 * Reads the guard of the next write.
 *
 * @param port - the session
 * @param rewind - the store's rewind-and-append; without one the newest row is not read
 * @returns the count and the newest row's trackingId
 */
export async function readHead(port: LedgerPort, rewind: Rewinder | undefined): Promise<Head> {
  const count = await port.messageCount()
  if (rewind === undefined || count === 0) return { count, newest: undefined }
  const [newest] = await port.history(count - 1, 1)
  return { count, newest: newest?.trackingId }
}

/**
 * Takes every row from `from` on out of the conversation and appends `first` (built from what the
 * leaving markers withdrew; undefined: nothing) and `then` after what stays, in one guarded transaction.
 * Seq 0 cannot be rewound past (a rewind keeps at least the message it names): when the first row leaves
 * too, every row is withdrawn by one marker instead, the rows staying in the session.
 *
 * @param port - the session
 * @param rewind - the store's rewind-and-append
 * @param head - the guard read before deciding
 * @param from - the first seq that leaves (at most the newest)
 * @param view - what the model sees now, and the window rows
 * @param first - builds the first row to append from the carried ranges
 * @param then - the rows after it
 * @param why - recorded on the abandoned branch
 * @throws ContextLedgerError `APPEND_CONFLICT` when another writer moved the session (nothing written)
 */
export async function leaveFrom(
  port: LedgerPort,
  rewind: Rewinder,
  head: Head,
  from: number,
  view: View,
  first: (carried: Carried) => AgentItem | undefined,
  then: readonly unknown[],
  why: Why,
): Promise<void> {
  const guard = { expectCount: head.count, expectNewest: head.newest }
  if (from === 0) {
    const all = first({ seqs: [[0, head.count]], pinned: view.shown.some((v) => v.pinned) })
    await rewind(guard, all === undefined ? then : [all, ...then])
    return
  }
  const leaving = await port.history(from, head.count - from)
  const carried = first(carriedOver(leaving, from, callSeqs(view.entries)))
  await rewind(
    {
      ...guard,
      toSeq: from - 1,
      ...(why.actor === undefined ? {} : { actor: why.actor }),
      reason: why.reason,
    },
    carried === undefined ? then : [carried, ...then],
  )
}
