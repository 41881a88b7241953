/**
 * The types the store's public methods return and take (besides the argument types of `check-args.ts`,
 * the lifecycle calls' of `lifecycle.ts` and the options of `store-options.ts`).
 */
import type { MessageFormatName } from '../formats/types.js'
import type { StoredMessageData } from '../messages/types.js'
import type { WindowPlan } from '../window/plan-cut.js'

/** One archived message with its ledger facts. */
export interface LedgerEntry {
  /** The session it belongs to. */
  readonly sessionId: string
  /** Its position in the session, from 0. */
  readonly seq: number
  /** Its tracking id. */
  readonly trackingId: string
  /** The message exactly as appended. */
  readonly message: StoredMessageData
  /** Token count recorded on append. */
  readonly tokens: number
  /** Whether it is pinned now. */
  readonly pinned: boolean
  /** Whether it is in the current window. */
  readonly inWindow: boolean
  /** When it was appended. */
  readonly createdAt: Date
  /** What the window shows instead of `message` (e.g. truncated tool results, an edit), when set. */
  readonly windowMessage: StoredMessageData | undefined
  /**
   * The seq of the earlier message this one repeats: a message sent again under a trackingId the session
   * already held (not a retry of its newest messages) is stored as a new occurrence with a new trackingId.
   */
  readonly repeatOf: number | undefined
  /**
   * True when it holds a toolResult for a call that was no longer waiting (answered by a repair row or an
   * earlier result): archived as sent, shown in the window as text (`windowMessage`).
   */
  readonly late: boolean
  /**
   * Set on an entry returned by `append()` when the store had to record a repair row just before this
   * message: error results for tool calls the previous message left open (see docs/reliability.md).
   */
  readonly repair?: LedgerEntry
}

/**
 * One row of a session's window with where it comes from, as `windowEntries()` returns it: what lets a
 * caller map what the model sees back to the archive (e.g. to `history()` entries).
 */
export interface WindowEntry {
  /** The message's seq in the session; undefined for the summary row (it stands for folded messages). */
  readonly seq: number | undefined
  /** The row as the model sees it: exactly what `window()` returns at this position. */
  readonly message: StoredMessageData
  /** Whether the message is pinned (always false for the summary row). */
  readonly pinned: boolean
}

/** A session as `sessions()` lists it. */
export interface SessionSummary {
  /** The session id. */
  readonly id: string
  /** Messages in the archive. */
  readonly messageCount: number
  /** Messages in the current window (its summary included). */
  readonly windowMessages: number
  /** Tokens in the current window (its summary included). */
  readonly windowTokens: number
  /** The id of the summary the window shows, if any. */
  readonly summaryId: number | undefined
  /** Tokens in the whole archive. */
  readonly totalTokens: number
  /** Pinned messages. */
  readonly pinnedCount: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** When the session was created. */
  readonly createdAt: Date
  /** When it last changed. */
  readonly updatedAt: Date
  /** The format its messages are in, fixed by its first append (`'strands'` unless another was named). */
  readonly format: MessageFormatName
  /**
   * Its metadata, parsed: what an append's `sessionMetadata` last stored (plain JSON); undefined when it
   * has none (or when the column holds text that is not JSON, which `check` reports).
   */
  readonly metadata: unknown
  /** The session it was forked from (or abandoned by a rewind of); null for a root (docs/api.md, "Branches"). */
  readonly parentId: string | null
  /** The last seq it inherits from its parent; null for a root. */
  readonly forkSeq: number | null
  /** `'root'`, `'fork'` or `'abandoned'`. */
  readonly kind: 'root' | 'fork' | 'abandoned'
}

/** A pinned message with who pinned it, when and why. */
export interface PinnedMessage {
  /** The session it belongs to. */
  readonly sessionId: string
  /** Its seq. */
  readonly seq: number
  /** Its tracking id. */
  readonly trackingId: string
  /** The message, carrying `metadata.custom.pinned = true`. */
  readonly message: StoredMessageData
  /** Whether it is in the window (it always is once the window has been applied). */
  readonly inWindow: boolean
  /** When it was last pinned. */
  readonly pinnedAt: Date
  /** Who pinned it: `'user'`, `'agent'`, `'append'` (flag on the way in), or a caller-chosen name. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
}

/** One pin or unpin. */
export interface PinEvent {
  /** The session. */
  readonly sessionId: string
  /** The message's seq. */
  readonly seq: number
  /** The message's tracking id. */
  readonly trackingId: string
  /** What happened. */
  readonly action: 'pin' | 'unpin'
  /** Who did it. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
  /** When. */
  readonly at: Date
}

/** What a pin or unpin did. */
export interface PinResult {
  /** The message's seq. */
  readonly seq: number
  /** The message's tracking id. */
  readonly trackingId: string
  /** Whether the pinned state changed (false when it already was as asked). */
  readonly changed: boolean
  /** Messages brought back into the window (the pinned message and its tool partners). */
  readonly restored: number
}

/** Options of {@link ContextStore.window}. */
export interface WindowReadOptions {
  /** Merge runs of same-role messages so that roles strictly alternate. Default false. */
  alternate?: boolean | undefined
}

/** Who changes a message and why. */
export interface EditAttribution {
  /** Who: `'user'` (default), `'strands'`, or any name. */
  actor?: string
  /** Why. */
  reason?: string
}

/** Options of {@link ContextStore.redactMessage}. */
export interface RedactOptions extends EditAttribution {
  /**
   * What the archive keeps instead: a message with the original's role, trackingId and tool ids. Default:
   * the same shape with every content replaced by `[redacted]`.
   */
  replacement?: unknown
}

/** What {@link ContextStore.redactMessage} did. */
export type RedactResult = LedgerEntry & {
  /**
   * True when no byte of the original is left in the ledger's files. False while another connection
   * reads an older snapshot of the file: the store finishes the erasure at its next write, at
   * `completeErasure()` or at `close()`.
   */
  readonly erased: boolean
}

/** One entry of the edit log. */
export interface MessageEdit {
  /** The session. */
  readonly sessionId: string
  /** The message's seq. */
  readonly seq: number
  /** The message's trackingId. */
  readonly trackingId: string
  /** `'edit'`: the window shows a new form; `'redact'`: the original was erased from the archive. */
  readonly kind: 'edit' | 'redact'
  /** Who made the change. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
  /** When. */
  readonly at: Date
  /** An edit's new form; undefined for a redaction and for edits a later redaction erased. */
  readonly message: StoredMessageData | undefined
}

/** What `applyWindow()` or `reduce()` did. */
export type WindowResult = Omit<WindowPlan, 'kept'>
