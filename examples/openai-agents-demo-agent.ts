/**
 * The agent of `npm run demo -- --openai-agents`: the session's configuration, the `lookup_order` tool
 * (a result of about 60 tokens), and a store, a `LedgerSession` on it and the `Agent` that runs with it,
 * built as the docs show.
 */
import { Agent, tool } from '@openai/agents'
import { z } from 'zod'
// In your project: import { openContextStore } from 'context-ledger'
import { openContextStore } from '../src/index.js'
// In your project: import { LedgerSession } from 'context-ledger/openai-agents'
import { LedgerSession } from '../src/adapters/openai-agents/index.js'
import type { SupportModel } from './openai-agents-demo-model.js'

/** The session id. */
export const SESSION_ID = 'support-dana'
/** Most items in the window. */
export const WINDOW_SIZE = 16
/** Most tokens in the window. */
export const TOKEN_BUDGET = 1_500
/** What the model takes at most; the run's own items come on top of the window. */
export const CONTEXT_LIMIT = 2_500
/** The fact said in the first turn, asked about after it left the window. */
export const FACT = 'Hi, this is Dana. Order A-1000 arrived broken; my refund code is RF-7731.'

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Looks an order up: status, items, carrier, history',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }) => {
    const n = Number(order.slice(2))
    const status = ['shipped', 'in transit', 'delivered', 'held at customs'][n % 4] ?? 'shipped'
    const events = Array.from({ length: 6 }, (_, k) => `day ${k + 1}: scanned at hub ${(n * 7 + k) % 31}`)
    return `${order} status: ${status}; carrier PostNord; 2 items; ${events.join('; ')}.`
  },
})

/**
 * A store, a session on it, and the agent whose session it is.
 *
 * @param file - the ledger file
 * @param model - the scripted model
 * @returns the three
 */
export function open(file: string, model: SupportModel) {
  const store = openContextStore(file)
  const session = new LedgerSession({
    store,
    sessionId: SESSION_ID,
    windowSize: WINDOW_SIZE,
    tokenBudget: TOKEN_BUDGET,
  })
  const agent = new Agent({
    name: 'support',
    instructions: 'You help customers with their orders. Look orders up; search the history when asked.',
    model,
    tools: [lookupOrder, ...session.tools.all],
  })
  return { store, session, agent }
}

/** What {@link open} returns. */
export type Opened = ReturnType<typeof open>
