/**
 * The stored form of the `claude-agent` format: the Claude Agent SDK's `SessionStoreEntry`
 * (`@anthropic-ai/claude-agent-sdk` 0.3, `sdk.d.ts`: `{ type: string; uuid?: string; timestamp?: string;
 * [k: string]: unknown }`), one line of a Claude Code transcript, exactly as the CLI wrote it. Structural
 * copies of the parts the ledger reads, so the core never imports the SDK. Any other key an entry holds is
 * stored and given back as it came.
 */
import type { JsonValue } from '../../messages/types.js'

/** A JSON object. */
export type JsonRecord = { [key: string]: JsonValue }

/** The top-level key of the ledger's own notes in this format (refused in a caller's entry). */
export const CLAUDE_NOTES_KEY = 'contextLedger'

/**
 * A content block of an Anthropic message (`text`, `thinking`, `redacted_thinking`, `tool_use`,
 * `tool_result`, `image`, `document`, server tools' `server_tool_use` and `*_tool_result`, …), or any
 * other block with a string `type` (kept as it is).
 */
export interface BlockData {
  type: string
  [key: string]: JsonValue
}

/** A `tool_use` block: a call the next `user` entries answer by `tool_use_id`. */
export interface ToolUseBlockData extends BlockData {
  type: 'tool_use'
  id: string
  name: string
  input: JsonValue
}

/** A `tool_result` block: the answer to a `tool_use` by its id. */
export interface ToolResultBlockData extends BlockData {
  type: 'tool_result'
  tool_use_id: string
  /** A string, or `text` / `image` / `document` blocks. */
  content?: JsonValue
  is_error?: boolean
}

/**
 * A transcript entry: a non-empty `type`, the entry's `uuid` when it has one, and anything else (a `user`
 * or `assistant` entry's Anthropic message in `message`: `role`, and `content` as a string or blocks; the
 * CLI writes one block per assistant entry).
 */
export interface ClaudeEntryData {
  type: string
  uuid?: string
  [key: string]: JsonValue | undefined
}
