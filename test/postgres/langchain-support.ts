/**
 * LangChain's real `createAgent` with `ledgerMiddleware` over a PostgreSQL store, for the PostgreSQL
 * tests of the LangChain adapter: the process tests' scripted agent (turns of three model calls: two
 * parallel lookups, one lookup, an answer), hooks to act while a tool runs or right after the model
 * answered (before the ledger stores its message), the thread's archive as keys, and the library's
 * typed error inside what `invoke` rejected with.
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages'
import type { MemorySaver } from '@langchain/langgraph'
import { createAgent, createMiddleware } from 'langchain'
import {
  ledgerMiddleware,
  type LedgerMiddleware,
  type LedgerMiddlewareOptions,
} from '../../src/adapters/langchain/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import { ContextLedgerError } from '../../src/index.js'
import type { ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { keysOf } from '../reliability/langchain-support.js'
import { inputProblems, lookupTool, turnModel } from '../reliability/workers/langchain-script.js'
import { LANGCHAIN_LIMITS } from '../reliability/workers/worker-kit.js'

/** What {@link pgAgent} takes besides the store and the tag. */
export interface PgAgentOptions {
  /** The thread (default `t`). */
  readonly thread?: string
  /** The middleware's options besides the store (default: the process tests' limits). */
  readonly middleware?: Omit<LedgerMiddlewareOptions<PostgresContextStore>, 'store'>
  /** A checkpointer for the agent. */
  readonly checkpointer?: MemorySaver
  /** Called when a lookup starts (model call `n`, its call `k`), before it answers. */
  readonly onTool?: (n: number, k: number) => Promise<void>
  /** Called when model call `n` answered, before the ledger stores its message. */
  readonly onAnswer?: (n: number) => Promise<void>
}

/** An agent on a PostgreSQL thread (see {@link pgAgent}). */
export interface PgAgent {
  /** Its scripted model (`inputs`: every model input). */
  readonly model: ScriptedChatModel
  /** Its ledger middleware. */
  readonly mw: LedgerMiddleware<PostgresContextStore>
  /** Runs turn `t`: the prompt `<tag> prompt <t>`, id `<tag>.human.<t>`. */
  readonly ask: (t: number) => Promise<{ messages: BaseMessage[] }>
  /** Resumes the thread's interrupted run from its checkpoint (`invoke(null)`). */
  readonly resume: () => Promise<{ messages: BaseMessage[] }>
  /** The problems a provider would find in the model's inputs so far. */
  readonly problems: () => string[]
}

/**
 * `createAgent` with the scripted model, the lookup tool and `ledgerMiddleware` first, then a middleware
 * whose `afterModel` runs before the ledger's (for `onAnswer`).
 *
 * @param store - the PostgreSQL store
 * @param tag - the prefix of the model's ids and the prompts
 * @param options - see {@link PgAgentOptions}
 * @returns the agent
 */
export function pgAgent(store: PostgresContextStore, tag: string, options: PgAgentOptions = {}): PgAgent {
  const model = turnModel(tag)
  const mw = ledgerMiddleware({ store, ...LANGCHAIN_LIMITS, ...options.middleware })
  const answered = createMiddleware({
    name: 'Answered',
    afterModel: async () => {
      await options.onAnswer?.(model.outputs.length - 1)
    },
  })
  const agent = createAgent({
    model,
    tools: [lookupTool(tag, options.onTool ?? (() => Promise.resolve()))],
    middleware: [mw, answered],
    ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }),
  })
  const config = { configurable: { thread_id: options.thread ?? 't' } }
  return {
    model,
    mw,
    ask: (t) =>
      agent.invoke(
        { messages: [new HumanMessage({ content: `${tag} prompt ${t}`, id: `${tag}.human.${t}` })] },
        config,
      ),
    resume: () => agent.invoke(null, config),
    problems: () => model.inputs.flatMap((input, i) => inputProblems(input).map((p) => `input ${i}: ${p}`)),
  }
}

/** The thread's archive (every row), as the process tests' keys, in seq order. */
export async function pgArchiveKeys(store: PostgresContextStore, thread = 't'): Promise<string[]> {
  const keys: string[] = []
  for (let from = 0; ;) {
    const page = await store.history(thread, { fromSeq: from, limit: 500 })
    if (page.length === 0) return keys
    for (const e of page) keys.push(...keysOf(e.message as never))
    from = (page.at(-1)?.seq ?? from) + 1
  }
}

/**
 * The library's error in what a call rejected with: the error itself, or the first down its `cause`s
 * (LangGraph may wrap what a middleware threw).
 *
 * @param error - what the call rejected with
 * @returns its code, or `RAW <error>` when no `ContextLedgerError` is in it
 */
export function ledgerCode(error: unknown): string {
  let e: unknown = error
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (e instanceof ContextLedgerError) return e.code
    e = (e as { cause?: unknown }).cause
  }
  return `RAW ${String(error)}`
}
