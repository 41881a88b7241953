/**
 * The server side of a `useChat` chat kept in the ledger, as a route handler (`POST /api/chat` in
 * Next.js, or any `Request → Response` server), with regenerate and edit: the transport's `trigger` and
 * `messageId` go to `saveUIMessages`, which rewinds the chat when they ask for it — the replaced answer
 * (or the edited message and what followed it) leaves the conversation as an abandoned branch, nothing is
 * deleted — and the model answers from the window. A `GET` lists a message's alternatives (the "2 / 3"
 * of a chat UI), each with the chat id that goes on from it.
 */
import {
  createUIMessageStreamResponse,
  generateId,
  stepCountIs,
  streamText,
  toUIMessageStream,
  tool,
  type LanguageModel,
  type Tool,
  type UIMessage,
} from 'ai'
import { z } from 'zod'
// In your project: import { isContextLedgerError } from 'context-ledger'
import { isContextLedgerError } from '../src/index.js'
// In your project: import { ledgerSession, type ChatRequest, type LedgerSessionStore } from 'context-ledger/ai-sdk'
import { ledgerSession, type ChatRequest, type LedgerSessionStore } from '../src/adapters/ai-sdk/index.js'

/** The runbook the model's tool reads. */
export const lookupRunbook: Tool<{ question: string }, string> = tool({
  description: 'Looks a question up in the on-call runbook',
  inputSchema: z.object({ question: z.string() }),
  execute: ({ question }): string =>
    /on.?call/i.test(question)
      ? 'the on-call engineer for db-eu this week is Priya Raman (pager 4471)'
      : /approv/i.test(question)
        ? 'a failover of db-eu is approved by the duty manager, Dana Whitfield'
        : 'db-eu fails over to its cold standby in eu-west-2 with runbook RB-17',
})

const tools = { lookup_runbook: lookupRunbook }

/** What `DefaultChatTransport` posts. */
type ChatBody = { id: string; messages: UIMessage[] } & ChatRequest

/** A refusal as the client gets it: the ledger's code, the field, the message. */
function refused(error: unknown): Response {
  if (!isContextLedgerError(error)) throw error
  const status = error.code === 'MESSAGE_NOT_FOUND' ? 404 : 400
  return Response.json({ code: error.code, path: error.path, message: error.message }, { status })
}

/**
 * The chat's route handlers over a store and a model.
 *
 * @param store - the ledger: `openContextStore(file)`, or `openPostgresContextStore(…)`
 * @param model - the model
 * @returns `POST` (a `useChat` request) and `GET` (`?chat=…&message=…`: a message's alternatives)
 */
export function chatRoute(store: LedgerSessionStore, model: LanguageModel) {
  const open = (id: string) => ledgerSession({ store, sessionId: id, format: 'ui', windowSize: 40, tools })
  return {
    POST: async (req: Request): Promise<Response> => {
      const { id, messages, trigger, messageId } = (await req.json()) as ChatBody
      const session = open(id)
      try {
        // A new message, an edit (sendMessage({ messageId })) or a regeneration (regenerate()).
        await session.saveUIMessages(messages, { trigger, messageId })
      } catch (error) {
        return refused(error)
      }
      const result = streamText({ model, tools, messages: await session.window(), stopWhen: stepCountIs(5) })
      return createUIMessageStreamResponse({
        stream: toUIMessageStream({
          stream: result.stream,
          tools,
          originalMessages: messages,
          generateMessageId: generateId, // the answer's id is the server's: the client sends it back as is
          onEnd: async ({ messages: all }) => {
            await session.saveUIMessages(all) // the answer
          },
        }),
      })
    },
    GET: async (req: Request): Promise<Response> => {
      const url = new URL(req.url)
      const session = open(url.searchParams.get('chat') ?? '')
      try {
        const alternatives = await session.alternatives({ messageId: url.searchParams.get('message') ?? '' })
        return Response.json(alternatives)
      } catch (error) {
        return refused(error)
      }
    },
  }
}
