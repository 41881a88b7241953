/**
 * The agent of `npm run demo -- --langchain`, as docs/langchain.md builds one: a store on the ledger
 * file, `ledgerMiddleware` on it (the thread id is the session; the recall tools on; the graph state kept
 * to the window), LangGraph's `SqliteSaver` beside it in a file of its own, the `lookup_order` tool (a
 * result of about 60 tokens) and `createAgent`. Both processes of the demo build it this way.
 */
import { createHash } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import type { BaseMessage } from '@langchain/core/messages'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { createAgent, HumanMessage, tool } from 'langchain'
import { z } from 'zod'
// In your project: import { openContextStore } from 'context-ledger'
import { openContextStore } from '../src/index.js'
// In your project: import { ledgerMiddleware } from 'context-ledger/langchain'
import { ledgerMiddleware } from '../src/adapters/langchain/index.js'
import type { SupportModel } from './langchain-demo-model.js'

/** The LangGraph thread, and so the ledger session. */
export const THREAD_ID = 'support-dana'
/** Most messages in the window. */
export const WINDOW_SIZE = 14
/** Most tokens in the window (the ledger's estimate). */
export const TOKEN_BUDGET = 1_400
/** What the model takes at most (its own estimate, the system prompt and the tool schemas aside). */
export const CONTEXT_LIMIT = 2_500
/** The fact said in the first turn, asked about after it left the window. */
export const FACT = 'Hi, this is Dana. The lamp of my last order arrived broken; my refund code is RF-7731.'
/** The system prompt (createAgent keeps it out of the graph state; the ledger does not store it). */
export const SYSTEM_PROMPT =
  'You help customers with their orders. Look orders up; search the history when asked about the past.'

const lookupOrder = tool(
  ({ order }) => {
    const n = Number(order.slice(2))
    const status = ['shipped', 'in transit', 'delivered', 'held at customs'][n % 4] ?? 'shipped'
    const events = Array.from({ length: 6 }, (_, k) => `day ${k + 1}: scanned at hub ${(n * 7 + k) % 31}`)
    return `${order} status: ${status}; carrier PostNord; 2 items; ${events.join('; ')}.`
  },
  {
    name: 'lookup_order',
    description: 'Looks an order up: status, items, carrier, history',
    schema: z.object({ order: z.string() }),
  },
)

/** The run config of the demo's thread. */
export const onThread = { configurable: { thread_id: THREAD_ID } }

/**
 * The checkpoint file beside a ledger file: `support.db` → `support-checkpoints.db`.
 *
 * @param file - the ledger file
 * @returns the checkpointer's file
 */
export const checkpointFileOf = (file: string): string =>
  join(dirname(file), `${basename(file, '.db')}-checkpoints.db`)

/**
 * The store, the middleware, the checkpointer and the agent, on a ledger file.
 *
 * @param file - the ledger file
 * @param model - the scripted model
 * @returns the four, and `close()`
 */
export function open(file: string, model: SupportModel) {
  const store = openContextStore(file)
  const ledger = ledgerMiddleware({
    store,
    windowSize: WINDOW_SIZE,
    tokenBudget: TOKEN_BUDGET,
    keepStateToWindow: true, // the checkpointer stores the window, the ledger everything
    tools: true, // search_history, read_history, pin_message
  })
  const checkpointer = SqliteSaver.fromConnString(checkpointFileOf(file))
  const agent = createAgent({
    model,
    tools: [lookupOrder],
    middleware: [ledger],
    checkpointer,
    systemPrompt: SYSTEM_PROMPT,
  })
  const close = () => {
    checkpointer.db.close()
    store.close()
  }
  return { store, ledger, checkpointer, agent, close }
}

/** What {@link open} returns. */
export type Opened = ReturnType<typeof open>

/**
 * One turn: the prompt on the demo's thread.
 *
 * @param o - the agent
 * @param prompt - what the customer says
 * @returns the graph state's messages after the run
 */
export async function ask(o: Opened, prompt: string): Promise<BaseMessage[]> {
  const result = await o.agent.invoke({ messages: [new HumanMessage(prompt)] }, onThread)
  return result.messages
}

/** The last message's text: the agent's answer. */
export const answerOf = (messages: readonly BaseMessage[]): string => messages.at(-1)?.text ?? ''

/** Thousands separated. */
export const int = (n: number): string => n.toLocaleString('en-US')

/**
 * A short fingerprint of messages as LangChain serializes them (ids included).
 *
 * @param messages - the messages
 * @returns 16 hex digits
 */
export const fingerprint = (messages: readonly BaseMessage[]): string =>
  createHash('sha256')
    .update(JSON.stringify(messages.map((m) => m.toDict())))
    .digest('hex')
    .slice(0, 16)

/**
 * Messages counted by type: `3 human, 5 ai, 6 tool`.
 *
 * @param messages - the messages
 * @returns the tally
 */
export function tally(messages: readonly BaseMessage[]): string {
  const counts = new Map<string, number>()
  for (const m of messages) counts.set(m.type, (counts.get(m.type) ?? 0) + 1)
  return [...counts].map(([type, n]) => `${n} ${type}`).join(', ')
}
