/**
 * What a summarizer is asked: a system prompt, and the request that follows the messages to fold. The
 * request is the one Strands' `SummarizingConversationManager` sends, so a summarizer sees the same input
 * under either manager; the default system prompt is context-ledger's own.
 */
import { createHash } from 'node:crypto'

/** The user message appended after the messages to summarize (the same text Strands 1.19 sends). */
export const SUMMARY_REQUEST = 'Please summarize this conversation.'

/**
 * The system prompt summaries are made with unless another is given. It asks for a summary the agent can
 * carry on from: what was asked and decided, what tools did and returned, what is still open.
 */
export const DEFAULT_SUMMARIZATION_PROMPT = `You condense the earlier part of a conversation between a user and an AI assistant, so the assistant can carry on without it. The summary replaces those messages: whatever it leaves out is lost to the assistant.

Write it as notes, not as a reply:
- Do not greet, address anyone, or continue the conversation; write about the participants in the third person.
- Use short bullet points under these headings, leaving out a heading with nothing under it:
  ## Goals and requests: what the user asked for, with constraints and preferences they stated.
  ## Decisions and facts: what was settled, and facts, names, numbers, paths and identifiers established.
  ## Tool calls: each significant tool the assistant used, with its input and what it returned; say a call failed only when the conversation shows it did.
  ## Code and data: code, commands, schemas or values shared, verbatim when short.
  ## Open items: questions not yet answered and work not yet done.
- An earlier summary among the messages is part of the conversation: keep what it says that still matters.
- Keep exact values (ids, versions, amounts, dates). Prefer dropping chatter to dropping facts.`

/**
 * The hash recorded with a summary: SHA-256 (hex) of the system prompt and the request it was made with.
 *
 * @param systemPrompt - the system prompt
 * @param request - the request text
 * @returns the hex digest
 */
export function promptHash(systemPrompt: string, request: string = SUMMARY_REQUEST): string {
  return createHash('sha256')
    .update(JSON.stringify([systemPrompt, request]))
    .digest('hex')
}
