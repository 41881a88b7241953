/**
 * The reference tree of the branch property tests: every session of one tree as a {@link BranchState} of
 * its own (a fork copies its parent's conversation and state), with the tree's shape — parent, fork point,
 * kind, who forked and why, creation order — and what `fork`, `rewind`, `branches` and
 * `deleteSession({ subtree })` do to it (BRANCH-SPEC.md, "Semantics"). Nothing here reads the store.
 */
import type { WindowLimits } from '../../src/index.js'
import { copyBranch, type BranchState } from './branch-model.js'
import { restrictBranch } from './branch-restrict.js'

/**
 * The abandoned branch's state: the session's as it was. The summary it shows is its own when it moved
 * with the rows (it stands for a message after `toSeq`, or the session was rewound to before its fork
 * point and had made it), else inherited.
 */
function abandonedState(old: BranchState, toSeq: number, before: boolean): BranchState {
  const state = copyBranch(old)
  const shown = state.summary
  if (shown !== undefined)
    state.summary = { ...shown, own: shown.own && (before || shown.toBoundary > toSeq + 1) }
  return state
}

/** One session of the tree. */
export interface TreeNode {
  readonly id: string
  parent: string | null
  forkSeq: number | null
  readonly kind: 'root' | 'fork' | 'abandoned'
  readonly actor: string | null
  readonly reason: string | null
  /** Creation order (the store lists children by when they were made). */
  readonly made: number
  /** Rows this session holds itself. */
  own: number
  /** Its conversation and window state. */
  state: BranchState
}

/** What `branches()` must list of one session (times left out). */
export interface ListedBranch {
  sessionId: string
  parentId: string | null
  forkSeq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  actor: string | null
  reason: string | null
  depth: number
  messageCount: number
  ownMessages: number
}

/** The sessions of one tree, by id. */
export class BranchTree {
  readonly nodes = new Map<string, TreeNode>()
  private made = 0

  /** @param rootId - the root session's id */
  constructor(
    readonly rootId: string,
    state: BranchState,
  ) {
    this.add({
      id: rootId,
      parent: null,
      forkSeq: null,
      kind: 'root',
      actor: null,
      reason: null,
      own: 0,
      state,
    })
  }

  private add(node: Omit<TreeNode, 'made'>): TreeNode {
    const n = { ...node, made: this.made++ }
    this.nodes.set(n.id, n)
    return n
  }

  /** The session `id` (which must exist). */
  get(id: string): TreeNode {
    const n = this.nodes.get(id)
    if (n === undefined) throw new Error(`no session ${id} in the model`)
    return n
  }

  /** The sessions a command may act on (not abandoned), in creation order. */
  live(): TreeNode[] {
    return [...this.nodes.values()].filter((n) => n.kind !== 'abandoned')
  }

  /** Children of `id`, oldest first. */
  children(id: string): TreeNode[] {
    return [...this.nodes.values()].filter((n) => n.parent === id).sort((a, b) => a.made - b.made)
  }

  /** Every descendant of `id`. */
  descendants(id: string): TreeNode[] {
    return this.children(id).flatMap((c) => [c, ...this.descendants(c.id)])
  }

  private depth(n: TreeNode): number {
    return n.parent === null ? 0 : 1 + this.depth(this.get(n.parent))
  }

  /** A new branch of `parentId` that inherits seqs 0..atSeq. */
  fork(parentId: string, atSeq: number, id: string, actor: string, reason: string | null): TreeNode {
    const parent = this.get(parentId)
    return this.add({
      id,
      parent: parentId,
      forkSeq: atSeq,
      kind: 'fork',
      actor,
      reason,
      own: 0,
      state: restrictBranch(parent.state, atSeq, { fork: true }),
    })
  }

  /**
   * `rewind(id, toSeq)`: the rows after `toSeq` move to a new abandoned branch that sees exactly what
   * the session saw (state and all); children forked after `toSeq` move under it; the session continues
   * from `toSeq`, its window restricted as a fork's. Returns the abandoned node (undefined: nothing moved).
   */
  rewind(
    id: string,
    toSeq: number,
    abandonedId: string,
    actor: string,
    reason: string | null,
  ): TreeNode | undefined {
    const n = this.get(id)
    const count = n.state.archive.length
    if (toSeq >= count - 1) return undefined
    // Rewound to before its own fork point, a branch's old content takes its old place: a sibling
    // forked where it was (docs/design.md, "Branches" — the store's departure from BRANCH-SPEC).
    const before = n.forkSeq !== null && toSeq < n.forkSeq
    const moved = count - 1 - Math.max(toSeq, n.forkSeq ?? -1)
    const abandoned = this.add({
      id: abandonedId,
      parent: before ? n.parent : id,
      forkSeq: before ? n.forkSeq : toSeq,
      kind: 'abandoned',
      actor,
      reason,
      own: moved,
      state: abandonedState(n.state, toSeq, before),
    })
    for (const c of this.children(id)) if ((c.forkSeq ?? 0) > toSeq) c.parent = abandonedId
    n.state = restrictBranch(n.state, toSeq, { fork: false, before })
    n.own -= moved
    if (before) n.forkSeq = toSeq
    return abandoned
  }

  /** The first free `${id}~${k}`, k ≥ 1 (a deleted session's id is free): a rewind's default abandoned id. */
  abandonedName(id: string): string {
    for (let k = 1; ; k++) if (!this.nodes.has(`${id}~${k}`)) return `${id}~${k}`
  }

  /**
   * `deleteSession(id, { subtree })`: refused (false) while a live descendant exists without `subtree`;
   * otherwise the session and every descendant go.
   */
  delete(id: string, subtree: boolean): string[] | false {
    const below = this.descendants(id)
    if (!subtree && below.some((d) => d.kind !== 'abandoned')) return false
    const gone = [id, ...below.map((d) => d.id)]
    for (const g of gone) this.nodes.delete(g)
    return gone
  }

  /** What `branches()` lists: the root first, then depth first, children by creation. */
  listing(): ListedBranch[] {
    const out: ListedBranch[] = []
    const visit = (n: TreeNode): void => {
      out.push({
        sessionId: n.id,
        parentId: n.parent,
        forkSeq: n.forkSeq,
        kind: n.kind,
        actor: n.actor,
        reason: n.reason,
        depth: this.depth(n),
        messageCount: n.state.archive.length,
        ownMessages: n.own,
      })
      for (const c of this.children(n.id)) visit(c)
    }
    const root = this.nodes.get(this.rootId)
    if (root !== undefined) visit(root)
    return out
  }

  /** The limits a session's window was last planned with, for the rules checker. */
  limitsOf(id: string): WindowLimits | undefined {
    return this.get(id).state.limits
  }
}
