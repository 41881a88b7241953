/**
 * The `claude-agent` format: the Claude Agent SDK's transcript entries (`SessionStoreEntry`, one line of a
 * Claude Code session's JSONL: `user`, `assistant`, `attachment`, `system`, bookkeeping entries), stored
 * exactly as the CLI wrote them. An entry's `uuid` names it for good (the SDK asks a store to treat it as
 * an idempotency key): sent again with the same content it writes nothing, other content under it is
 * refused; an entry without `uuid` gets an id the ledger mints and is appended every time it is sent, as
 * the SDK asks. The CLI owns the conversation: every entry defers waiting calls, the ledger writes no
 * repair row, and a result for a call the session never made is stored as a late result rather than
 * refused (a mirror must not drop a batch the CLI wrote). The ledger's notes live in the entry's top-level
 * `contextLedger`, which a caller's entry may not carry. The format has no pin flag. Imports no SDK.
 */
import { canonical } from '../../adapters/canonical.js'
import { readNotes } from '../ai-sdk-common.js'
import type { MessageFormat } from '../types.js'
import { claudeFacts, claudeText, claudeTokens } from './derive.js'
import { claudeDisplay } from './display.js'
import { claudeLateForm, claudePrompt, claudeRedact, claudeRepair, claudeSummary } from './rewrite.js'
import { snapshotClaudeEntry, snapshotStoredEntry } from './schema.js'
import { truncateClaudeEntry } from './truncate.js'
import { CLAUDE_NOTES_KEY, type ClaudeEntryData } from './types.js'

export type * from './types.js'
export { CLAUDE_NOTES_KEY } from './types.js'

/** The `claude-agent` message format (see the module comment and the functions it calls). */
export const claudeAgentFormat: MessageFormat<ClaudeEntryData> = Object.freeze({
  name: 'claude-agent',
  snapshot: snapshotClaudeEntry,
  snapshotStored: snapshotStoredEntry,
  idOf: (entry: ClaudeEntryData) => (typeof entry.uuid === 'string' ? entry.uuid : undefined),
  uniqueIds: true,
  idPath: 'uuid',
  callIdsOnce: false,
  splitSteps: true,
  repairs: false,
  unknownResults: 'late',
  withId: (entry: ClaudeEntryData) => entry,
  facts: claudeFacts,
  // Canonical JSON: an entry sent again with its keys in another order is the same entry.
  contentKey: (entry: ClaudeEntryData) => canonical(entry),
  text: claudeText,
  estimateTokens: claudeTokens,
  notesOf: (entry: ClaudeEntryData) => readNotes(entry, CLAUDE_NOTES_KEY),
  repair: claudeRepair,
  lateForm: claudeLateForm,
  redact: (entry: ClaudeEntryData, redactedText: string) => claudeRedact(entry, redactedText),
  prune: (entry: ClaudeEntryData, redactedText: string) => claudeRedact(entry, redactedText, true),
  summary: claudeSummary,
  display: claudeDisplay,
  truncate: truncateClaudeEntry,
  prompt: claudePrompt,
  show: (entry: ClaudeEntryData) => entry,
})
