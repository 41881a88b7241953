/**
 * The alternatives of a message: every version of the message at one position of the conversation that
 * the session's tree holds after the same earlier messages — the answers a regeneration replaced, the
 * user messages an edit replaced, and the current one. Each lives in the branch that owns its row, and
 * that branch's conversation is the one that goes on from it: a chat UI shows "2 / 3" and switches by
 * opening that branch (`useChat({ id: alternative.sessionId })`). Computed from `branches()` alone: a
 * branch's conversation is its parent's up to its fork point, then its own rows, so which session owns
 * each seq of a conversation (its lineage) follows from the parents and fork points. A version is named
 * by any of the versions' ids: the current one's, or one a rewind moved into an abandoned branch (what a
 * UI showing "1 / 3" passes) — the list is the same, with the same order and the same `current`.
 */
import type { BranchInfo, LedgerEntry } from '../../store/context-store.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort } from './branch-port.js'
import { findInTree, locate, unknownId, type MessageTarget } from './rewind-points.js'

/** One version of a message (see {@link LedgerSession.alternatives}). */
export interface MessageAlternative<M = unknown> {
  /**
   * The branch whose conversation holds this version and goes on from it — open it to switch to it; for
   * the current version, the session itself.
   */
  readonly sessionId: string
  /** That branch's kind (`'abandoned'` for what a regeneration or an edit replaced). */
  readonly kind: BranchInfo['kind']
  /** The version's place in the conversation (the same for every alternative). */
  readonly seq: number
  /** The version, as its branch shows it. */
  readonly message: M
  /** When it was written. */
  readonly createdAt: Date
  /** Whether it is the one the session's own conversation holds. */
  readonly current: boolean
}

/** A run of seqs one session contributes to a conversation: from the previous run's end + 1 to `upTo`. */
interface Run {
  readonly owner: string
  readonly upTo: number
}

/** Which session owns each seq of a branch's conversation: its ancestors' runs up to each fork point, then its own. */
function lineage(id: string, tree: ReadonlyMap<string, BranchInfo>, memo: Map<string, Run[]>): Run[] {
  const known = memo.get(id)
  if (known !== undefined) return known
  const node = tree.get(id)
  const runs: Run[] = []
  if (node?.parentId != null && node.forkSeq !== null) {
    let start = 0
    for (const run of lineage(node.parentId, tree, memo)) {
      if (start > node.forkSeq) break
      runs.push({ owner: run.owner, upTo: Math.min(run.upTo, node.forkSeq) })
      start = run.upTo + 1
    }
  }
  runs.push({ owner: id, upTo: Infinity })
  memo.set(id, runs)
  return runs
}

/** The runs of a lineage before `seq`: equal for two branches when their conversations share those rows. */
function prefixKey(runs: readonly Run[], seq: number): string {
  const out: Run[] = []
  let start = 0
  for (const run of runs) {
    if (start >= seq) break
    out.push({ owner: run.owner, upTo: Math.min(run.upTo, seq - 1) })
    start = run.upTo + 1
  }
  return JSON.stringify(out)
}

/** The session owning `seq` in a lineage. */
function ownerAt(runs: readonly Run[], seq: number): string {
  return (runs.find((r) => seq <= r.upTo) ?? runs[runs.length - 1])?.owner ?? ''
}

/**
 * The versions of a message, named by `target` — a message of the session's conversation, or by its id
 * one that a branch of the session's tree holds (a version a rewind replaced).
 *
 * @param port - the session
 * @param branches - its tree
 * @param sessionId - its id
 * @param target - `{ seq }` of the conversation, or `{ messageId }` of any version in the tree
 * @param shown - how a stored entry is shown (the format's version of it)
 * @returns the alternatives (see {@link alternativesAt})
 * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (path `seq` / `messageId`) naming the message and the session
 */
export async function alternativesOf<M>(
  port: LedgerPort,
  branches: BranchPort,
  sessionId: string,
  target: MessageTarget,
  shown: (entry: LedgerEntry) => M,
): Promise<MessageAlternative<M>[]> {
  if ('seq' in target) {
    const entry = await locate(port, sessionId, target)
    return alternativesAt(branches, sessionId, sessionId, entry.seq, shown)
  }
  const here = await port.byTrackingId(target.messageId)
  if (here !== undefined) return alternativesAt(branches, sessionId, sessionId, here.seq, shown)
  const there =
    (await port.storedFormat()) === undefined
      ? undefined
      : await findInTree(branches, sessionId, target.messageId)
  if (there === undefined) throw unknownId(sessionId, target.messageId)
  return alternativesAt(branches, sessionId, there.sessionId, there.entry.seq, shown)
}

/**
 * The versions of the message at `seq` of a conversation, oldest first: one per distinct row at `seq`
 * after the same earlier rows — and per distinct form of one row, when a branch shows it otherwise (the
 * first message of a chat, edited in place: see first-message.ts).
 *
 * @param branches - the session's tree
 * @param sessionId - the session: its version is the `current` one (none is when its conversation
 *   goes another way before `seq`)
 * @param from - the session of the tree whose conversation holds the version named (`sessionId` itself
 *   for a message of its conversation)
 * @param seq - the message's seq in that conversation
 * @param shown - how a stored entry is shown (the format's version of it)
 * @returns the alternatives, each with the branch that goes on from it (the session itself for its own)
 */
export async function alternativesAt<M>(
  branches: BranchPort,
  sessionId: string,
  from: string,
  seq: number,
  shown: (entry: LedgerEntry) => M,
): Promise<MessageAlternative<M>[]> {
  const nodes = await branches.branches()
  const tree = new Map(nodes.map((b) => [b.sessionId, b]))
  const memo = new Map<string, Run[]>()
  const key = prefixKey(lineage(from, tree, memo), seq)
  const found = new Map<string, MessageAlternative<M> & { readonly rank: number }>()
  // Tree order (root first): a version seen in several branches goes on in the session itself when it
  // is the session's, else in the branch that owns its row, else in the first branch that shows it.
  for (const b of nodes) {
    const runs = lineage(b.sessionId, tree, memo)
    if (b.messageCount <= seq || prefixKey(runs, seq) !== key) continue
    const entry = await branches.messageIn(b.sessionId, { seq })
    if (entry === undefined) continue
    const message = shown(entry)
    const version = `${ownerAt(runs, seq)}\0${JSON.stringify(message)}`
    const rank = b.sessionId === sessionId ? 2 : b.sessionId === ownerAt(runs, seq) ? 1 : 0
    if ((found.get(version)?.rank ?? -1) >= rank) continue
    const current = rank === 2
    const { createdAt } = entry
    found.set(version, { sessionId: b.sessionId, kind: b.kind, seq, message, createdAt, current, rank })
  }
  return [...found.values()].map(({ rank: _rank, ...a }) => a).sort(byAge(tree))
}

/**
 * Oldest first, by when each version was written. Rows written in the same millisecond: a version a
 * rewind abandoned was written before what its session wrote after the rewind, and an earlier rewind's
 * before a later one's (the branch created first, `chat~1` before `chat~2`).
 */
function byAge(tree: ReadonlyMap<string, BranchInfo>) {
  const abandonedAt = (a: MessageAlternative) =>
    a.kind === 'abandoned' ? (tree.get(a.sessionId)?.createdAt ?? 0) : Infinity
  return (a: MessageAlternative, b: MessageAlternative): number =>
    a.createdAt.getTime() - b.createdAt.getTime() ||
    abandonedAt(a) - abandonedAt(b) ||
    a.sessionId.localeCompare(b.sessionId, 'en', { numeric: true })
}
