/**
 * A message format: everything the ledger needs to know about one framework's own message JSON. The
 * store keeps the caller's body exactly; what the window, search and tokens need is derived here, once,
 * when a message is appended (docs/design.md, "Message formats"). A format module is pure: it imports
 * no framework, so the root entry loads none.
 */
import type { MessageLimits } from '../messages/limits.js'
import type { StoredMessageData } from '../messages/types.js'

/** The formats a session can hold; a session's format is fixed by its first append. */
export const MESSAGE_FORMATS = Object.freeze([
  'strands',
  'ai-sdk/model',
  'ai-sdk/ui',
  'openai-agents',
  'langchain',
  'claude-agent',
] as const)

/** The name of a message format (see {@link MESSAGE_FORMATS}). */
export type MessageFormatName = (typeof MESSAGE_FORMATS)[number]

/** A tool call a message makes, with where it sits (for error paths). */
export interface ToolUseFact {
  /** The call's id (Strands `toolUseId`, AI SDK `toolCallId`). */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** Path of the id inside the message, e.g. `content[1].toolUse.toolUseId`. */
  readonly path: string
}

/** A tool call a message answers, with where it sits (for error paths). */
export interface ToolResultFact {
  /** The id of the call it answers. */
  readonly id: string
  /** Whether the tool succeeded. */
  readonly status: 'success' | 'error'
  /** Path of the id inside the message, e.g. `content[0].toolResult.toolUseId`. */
  readonly path: string
}

/**
 * What the window rules know about a message; derived from the body at append and stored in columns and
 * link rows. The rules themselves (Strands' trim points and tool pairs) are the same for every format.
 */
export interface MessageFacts {
  /**
   * The side of the conversation for the window rules: `'user'` for whoever prompts or answers a tool
   * call (a user message, an AI SDK `role: 'tool'` message), `'assistant'` for the model.
   */
  readonly role: 'user' | 'assistant'
  /** Who actually spoke, for display: `user`, `assistant`, `tool` or `system`. */
  readonly speaker: 'user' | 'assistant' | 'tool' | 'system'
  /** The calls it makes that another message must answer, in order. */
  readonly toolUses: readonly ToolUseFact[]
  /** The calls of earlier messages it answers, in order. */
  readonly toolResults: readonly ToolResultFact[]
  /** A window may always open here: a prompt that neither makes nor answers a call. */
  readonly plainUser: boolean
  /**
   * The waiting calls it does not answer stay open for the next message: it carries part of their answers
   * on (an AI SDK `tool` message: one step's results may come in several, approval responses between a
   * call and its result). Otherwise a message that leaves calls unanswered gets a repair row before it.
   */
  readonly defersCalls: boolean
  /** It arrived carrying the format's pin flag (Strands' `metadata.custom.pinned`). */
  readonly pinned: boolean
}

/** The library's own notes on a message it wrote or rewrote; a caller's are stripped on the way in. */
export interface LedgerNotes {
  /** A repair row answering interrupted calls. */
  readonly repair?: 'missing-tool-result'
  /** Retention erased its content. */
  readonly pruned?: true
  /** A summary message. */
  readonly summary?: true
}

/** A tool result that arrived after its call stopped waiting (shown as text in the window). */
export interface LateToolResult {
  /** The call's id. */
  readonly id: string
  /**
   * The tool's name, from the call the session recorded; '' for a call the session never made (stored
   * late only in a format with {@link MessageFormat.unknownResults} `'late'`).
   */
  readonly name: string
}

/**
 * One framework's message JSON. `M` is the stored form (the caller's message, exactly).
 *
 * Every method is pure and works on a plain copy; none changes its argument.
 */
export interface MessageFormat<M = unknown> {
  /** The format's name, as stored on the session row. */
  readonly name: MessageFormatName
  /**
   * Validates a caller's value and returns the plain copy that will be stored (the one read of it:
   * `snapshotJson`), with the library's reserved notes stripped.
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
   */
  snapshot(input: unknown, limits: MessageLimits): M
  /**
   * Validates a body as the ledger holds it: for a format whose `snapshot` refuses the ledger's notes
   * instead of stripping them (an entry stored exactly), a body carrying them in exactly the form the
   * ledger writes (a pruned entry, a summary) passes too. `check` and a summary's validation use it;
   * absent, `snapshot` serves (it strips the notes, so it accepts what the ledger wrote).
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad field
   */
  snapshotStored?(input: unknown, limits: MessageLimits): M
  /** The id the message carries in its own shape (Strands' `trackingId`, a UI message's `id`), if any. */
  idOf(message: M): string | undefined
  /**
   * Its id names one message for good (a UIMessage's): a message sent again under a stored id is the same
   * message when its content is equal (nothing is written) and refused otherwise — never stored as a copy
   * under a new id, as a Strands message sent again is.
   */
  readonly uniqueIds: boolean
  /** Where that id sits in the message, for error paths (default `id`: a UIMessage's; `data.id` in LangChain's). */
  readonly idPath?: string
  /**
   * A call id names one call for good (an Agents item's `callId`): a call made with an id the session
   * already used is refused, instead of opening a second call under it once the first was answered.
   */
  readonly callIdsOnce: boolean
  /**
   * A model's step comes as several messages, each making its own calls (an Agents item, a Claude
   * transcript entry: one block each), so its calls may be answered after other messages of the step: a
   * message that makes calls opens a tool pair only when the next message answers exactly its calls and
   * no call made before it still waits. Default false: one message makes all of a step's calls.
   */
  readonly splitSteps?: boolean
  /**
   * Whether the store answers calls a message leaves waiting with a repair row (default true). False for
   * a framework that answers interrupted calls itself (the Claude CLI writes its own error results): the
   * ledger mirrors its transcript and never writes a row of its own into it; a call nobody answered stays
   * open, and every message carries it on.
   */
  readonly repairs?: boolean
  /**
   * What a result for a call the session never made is: refused (`INVALID_MESSAGE`, the default), or —
   * `'late'` — stored as a late result (archived as sent, shown in the window as text), for a format
   * that mirrors a transcript another program owns and must never refuse what it wrote.
   */
  readonly unknownResults?: 'late'
  /**
   * The message as stored under `id`: a format whose shape holds an id puts it there (Strands'
   * `trackingId`); the others return the message unchanged and the id lives only in the ledger's column.
   */
  withId(message: M, id: string): M
  /** The facts the window rules use. */
  facts(message: M): MessageFacts
  /** What must match for a retried append to be a no-op (metadata may differ between attempts). */
  contentKey(message: M): string
  /** The searchable text: every text, reasoning, tool input and tool output, one per line. */
  text(message: M): string
  /** The built-in token estimate (about four characters a token, fixed costs for media). */
  estimateTokens(message: M): number
  /** The library's notes on a message it wrote, or undefined. */
  notesOf(message: M): LedgerNotes | undefined
  /**
   * The message that answers interrupted calls with error results, marked as a repair.
   *
   * @param calls - the open calls, in call order
   * @param text - the error text of each result
   */
  repair(calls: readonly { id: string; name: string }[], text: string): M
  /**
   * The window form with its long tool outputs cut (Strands' rule: a long text keeps its first and last
   * 200 characters, a large JSON value becomes a note of its size), or undefined when nothing is long.
   */
  truncate(message: M): M | undefined
  /** The window form of a message whose results in `late` answer calls that no longer wait: text instead. */
  lateForm(message: M, late: readonly LateToolResult[]): M
  /** The redacted form: text gone, tool ids and names kept, the pin flag and the repair note kept. */
  redact(message: M, redactedText: string): M
  /** Retention's pruned form: the redacted form marked `pruned`. */
  prune(message: M, redactedText: string): M
  /** The summary message a window shows for folded messages (a message of this format). */
  summary(texts: readonly string[]): M
  /** A plain user message with this text (the request that closes a summarizer's input). */
  prompt(text: string): M
  /**
   * How a person or a model reads it (the CLI, the recall tools): a Strands-shaped form with its text,
   * tool calls and their input, tool results and their output as text. Made for reading, never stored.
   */
  display(message: M): StoredMessageData
  /**
   * The message as the window and history hand it back: Strands shows the pin flag in
   * `metadata.custom.pinned`; the other formats return the body exactly.
   */
  show(message: M, pinned: boolean): M
}
