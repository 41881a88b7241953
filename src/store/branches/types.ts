/**
 * The public shapes of branches (docs/design.md, "Branches"; docs/api.md, "Branches"): what `fork`,
 * `rewind`, `branches` and `deleteSession({ subtree })` take and return.
 */

/** What a branch is: the root of a tree, a fork, or the messages a rewind took out of a session. */
export type BranchKind = 'root' | 'fork' | 'abandoned'

/** Where a branch starts (exactly one of the two). */
export type ForkPoint = { atSeq: number } | { trackingId: string }

/** How `fork()` makes a branch. */
export interface ForkOptions {
  /** The last message the branch inherits (inclusive), by seq. */
  atSeq?: number
  /** …or by trackingId. */
  trackingId?: string
  /** The new session's id; default: a minted UUID v7. */
  newSessionId?: string
  /** Who forked (`'user'`, `'agent'`, a name); default `'user'`. */
  actor?: string
  /** Why, free text. */
  reason?: string
  /** The new session's metadata (plain JSON); default: the parent's. */
  metadata?: unknown
}

/** How `rewind()` continues a session from an earlier message. */
export interface RewindOptions {
  /** The last message that stays, by seq. */
  toSeq?: number
  /** …or by trackingId. */
  trackingId?: string
  /** Who rewound; default `'user'`. */
  actor?: string
  /** Why, free text. */
  reason?: string
  /** The id of the abandoned branch; default `${sessionId}~${k}`, the first free k ≥ 1. */
  abandonedId?: string
}

/** One session of a tree, as `branches()` lists it. */
export interface BranchInfo {
  /** Its id. */
  readonly sessionId: string
  /** Its parent's id; null for a root. */
  readonly parentId: string | null
  /** The last seq it inherits from its parent; null for a root. */
  readonly forkSeq: number | null
  /** A root, a fork, or what a rewind abandoned. */
  readonly kind: BranchKind
  /** When it was made, ms since the epoch: for a branch, when it was forked (or abandoned). */
  readonly createdAt: number
  /** Who forked or rewound; null for a root. */
  readonly actor: string | null
  /** Why; null when not given. */
  readonly reason: string | null
  /** How far below its root (0 for a root). */
  readonly depth: number
  /** The messages of its whole conversation (inherited and its own). */
  readonly messageCount: number
  /** The messages it holds itself. */
  readonly ownMessages: number
}

/** What `rewind()` did. */
export interface RewindResult {
  /** The session, now ending at the message rewound to. */
  readonly session: BranchInfo
  /** The branch holding the messages that left; undefined when none came after (nothing was written). */
  readonly abandoned: BranchInfo | undefined
  /** How many messages left the conversation. */
  readonly left: number
}

/** How `deleteSession()` treats a session's branches. */
export interface DeleteSessionOptions {
  /**
   * Delete every descendant too. Without it, a session with a live (not abandoned) descendant is refused
   * with `BRANCH_HAS_CHILDREN`; abandoned descendants are always deleted with it.
   */
  subtree?: boolean
}
