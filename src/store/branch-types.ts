/**
 * The branch API's types as /work/wt/BRANCH-SPEC.md states them. Stand-in until `br-core` lands its
 * own (this file then goes, and the imports follow the core's).
 */

/** Options of `fork`: exactly one of `atSeq` / `trackingId`. */
export interface ForkOptions {
  /** The last message the branch inherits (inclusive). */
  atSeq?: number
  /** …or name it by trackingId. */
  trackingId?: string
  /** Default: a minted UUID v7. */
  newSessionId?: string
  /** Who forked; default 'user'. */
  actor?: string
  /** Why, free text. */
  reason?: string
  /** The new session's metadata (default: the parent's). */
  metadata?: unknown
}

/** Options of `rewind`. */
export interface RewindOptions {
  /** The last message that stays. */
  toSeq?: number
  /** …or by trackingId. */
  trackingId?: string
  /** Who rewound. */
  actor?: string
  /** Why. */
  reason?: string
  /** Id of the abandoned branch; default `${sessionId}~${k}`. */
  abandonedId?: string
}

/** One branch of a tree. */
export interface BranchInfo {
  /** Its session id. */
  sessionId: string
  /** Its parent, null for a root. */
  parentId: string | null
  /** The last seq inherited from the parent (null for a root). */
  forkSeq: number | null
  /** What it is. */
  kind: 'root' | 'fork' | 'abandoned'
  /** When it was forked / abandoned, ms. */
  createdAt: number
  /** Who forked / rewound. */
  actor: string | null
  /** Why. */
  reason: string | null
  /** 0 for a root. */
  depth: number
  /** The whole conversation it sees. */
  messageCount: number
  /** Rows it holds itself. */
  ownMessages: number
}

/** What `rewind` did. */
export interface RewindResult {
  /** The session, now ending at toSeq. */
  session: BranchInfo
  /** The abandoned branch, undefined when nothing came after toSeq. */
  abandoned: BranchInfo | undefined
  /** Messages that left the conversation. */
  left: number
}
