/**
 * The Strands format (`'strands'`): Strands / Bedrock-Converse `MessageData` JSON, what every session held
 * before formats existed and the default for a new one. The ledger's notes live under
 * `metadata.custom.contextLedger`; the pin flag is `metadata.custom.pinned`, honoured on the way in and
 * shown on the way out; the tracking id is the message's `trackingId`.
 */
import { truncateToolResults } from '../../messages/truncate-tool-results.js'
import { classifyMessage } from '../../messages/classify.js'
import { hasPinFlag, withPinFlag } from '../../messages/pin-flag.js'
import { redactedForm } from '../../messages/redact.js'
import { hasPrunedNote, withoutReservedNotes } from '../../messages/reserved-notes.js'
import { snapshotMessage } from '../../messages/schema.js'
import { estimateTokens } from '../../messages/tokens.js'
import type { MessageData, StoredMessageData } from '../../messages/types.js'
import { MISSING_TOOL_RESULT_REPAIR, SUMMARY_MARKER, isSummaryMessage } from '../../messages/ledger-notes.js'
import { lateResultsWindowForm } from '../../store/late-tool-results.js'
import { prunedForm } from '../../store/retention-options.js'
import type { LedgerNotes, MessageFacts, MessageFormat } from '../types.js'
import { strandsText } from './text.js'

export { strandsText } from './text.js'

function facts(message: MessageData): MessageFacts {
  const toolUses: { id: string; name: string; path: string }[] = []
  const toolResults: { id: string; status: 'success' | 'error'; path: string }[] = []
  message.content.forEach((block, i) => {
    if ('toolUse' in block)
      toolUses.push({
        id: block.toolUse.toolUseId,
        name: block.toolUse.name,
        path: `content[${i}].toolUse.toolUseId`,
      })
    else if ('toolResult' in block)
      toolResults.push({
        id: block.toolResult.toolUseId,
        status: block.toolResult.status,
        path: `content[${i}].toolResult.toolUseId`,
      })
  })
  const cls = classifyMessage(message)
  return {
    role: message.role,
    speaker: message.role,
    toolUses,
    toolResults,
    plainUser: cls.plainUser,
    defersCalls: false,
    pinned: hasPinFlag(message),
  }
}

function notesOf(message: MessageData): LedgerNotes | undefined {
  const notes = message.metadata?.custom?.contextLedger
  if (typeof notes !== 'object' || notes === null || Array.isArray(notes)) return undefined
  const out: { repair?: 'missing-tool-result'; pruned?: true; summary?: true } = {}
  if (notes.repair === MISSING_TOOL_RESULT_REPAIR) out.repair = MISSING_TOOL_RESULT_REPAIR
  if (hasPrunedNote(message)) out.pruned = true
  if (isSummaryMessage(message)) out.summary = true
  return Object.keys(out).length > 0 ? out : undefined
}

/** The Strands message format. */
export const strandsFormat: MessageFormat<StoredMessageData> = Object.freeze<
  MessageFormat<StoredMessageData>
>({
  name: 'strands',
  snapshot: (input, limits) => withoutReservedNotes(snapshotMessage(input, limits)) as StoredMessageData,
  idOf: (message) => message.trackingId,
  uniqueIds: false,
  callIdsOnce: false,
  withId: (message, id) => (message.trackingId === id ? message : { ...message, trackingId: id }),
  facts,
  contentKey: (message) => JSON.stringify([message.role, message.content]),
  text: strandsText,
  estimateTokens: (message) => estimateTokens(message),
  notesOf,
  repair: (calls, text) => ({
    role: 'user',
    content: calls.map((c) => ({ toolResult: { toolUseId: c.id, status: 'error', content: [{ text }] } })),
    trackingId: '',
    metadata: { custom: { contextLedger: { repair: MISSING_TOOL_RESULT_REPAIR } } },
  }),
  lateForm: (message, late) => {
    const byId = new Map(late.map((l) => [l.id, l.name]))
    const blocks: { block: number; id: string; name: string }[] = []
    message.content.forEach((block, i) => {
      const name = 'toolResult' in block ? byId.get(block.toolResult.toolUseId) : undefined
      if (name !== undefined && 'toolResult' in block)
        blocks.push({ block: i, id: block.toolResult.toolUseId, name })
    })
    return lateResultsWindowForm(message, blocks)
  },
  redact: (message) => redactedForm(message),
  prune: (message) => prunedForm(message),
  summary: (texts) => ({
    role: 'user',
    content: texts.map((text) => ({ text })),
    trackingId: '',
    metadata: SUMMARY_MARKER,
  }),
  display: (message) => message,
  truncate: (message) => {
    const cut = truncateToolResults(message)
    return cut === message ? undefined : cut
  },
  prompt: (text) => ({ role: 'user', content: [{ text }], trackingId: '' }),
  show: (message, pinned) => (pinned || hasPinFlag(message) ? withPinFlag(message, pinned) : message),
})
