/**
 * The ways bench/langchain.ts keeps a LangChain agent's conversation, each a real `createAgent` (langchain
 * 1.x) with the scripted model and tool of bench/langchain-fixtures.ts, played turn by turn with
 * `agent.invoke({ messages: [prompt] }, { configurable: { thread_id } })`:
 *
 *   (a) saver:   LangGraph's `SqliteSaver` (`@langchain/langgraph-checkpoint-sqlite`, opened as its docs
 *                show: `SqliteSaver.fromConnString(file)`) as the agent's checkpointer; the state keeps
 *                every message and the model gets all of them;
 *   (b) trim:    the same, with `trimMessages` (`@langchain/core/messages`) before the model in a
 *                middleware's `wrapModelCall`: the last 40 messages (`tokenCounter` counting messages,
 *                `strategy: 'last'`, `startOn: 'human'`); the state still keeps every message;
 *   (c) ours:    the ledger middleware (`ledgerMiddleware({ store, windowSize: 40, keepStateToWindow:
 *                true })`, `context-ledger/langchain`) with the `SqliteSaver` beside it: the state is the
 *                window, the ledger keeps everything;
 *   (d) ours, no checkpointer: the ledger middleware alone, with its default `keepStateToWindow: false`
 *                (there is no checkpointed state to keep small; the ledger is the memory);
 *   (e) no memory: the same agent with no checkpointer and no middleware — each turn starts from its
 *                prompt alone. Not a way to keep a conversation: the loop's own cost, the floor of the
 *                others' times.
 *
 * Every side is seeded with the same history, untimed: one `updateState` of the whole history for (a)
 * and (b) (one checkpoint holding it, as after the turns that made it), `LedgerChatMessageHistory`
 * `addMessages` of 1,000 messages at a time for (c) and (d) (the saver of (c) holds the window after the
 * first turn, a warm-up one).
 */
import { HumanMessage, trimMessages, type BaseMessage } from '@langchain/core/messages'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { createAgent, createMiddleware, type AgentMiddleware } from 'langchain'
import { LedgerChatMessageHistory, ledgerMiddleware } from '../src/adapters/langchain/index.js'
import { openContextStore } from '../src/index.js'
import { ScriptedChatModel, searchTool, Stage, type TurnScript } from './langchain-fixtures.js'

/** The window of ours, and what (b) trims to: the same as every other bench's. */
export const WINDOW = 40
/** The thread every side plays. */
export const THREAD = 'bench'
/** Messages per `addMessages()` when a ledger is seeded. */
const FILL_BATCH = 1_000
/** The agent's system prompt. */
const SYSTEM = 'You are a helpful assistant. Search the documentation before you answer.'

/** The sides' keys, in the order they are reported. */
export type SideKey = 'a' | 'b' | 'c' | 'd' | 'e'

/** One way of keeping the conversation. */
export interface LangChainSide {
  /** Its key. */
  readonly key: SideKey
  /** What its model was given, call by call. */
  readonly stage: Stage
  /**
   * Plays one turn through the agent.
   *
   * @param script - the turn
   * @returns how many messages the agent's state holds after it
   */
  turn(script: TurnScript): Promise<number>
  /** Writes what a checkpoint of SQLite's log would write now, for each of its files. */
  checkpoint(): void
  /** Releases its files. */
  close(): void
}

/** The agent as a side plays it: `invoke` with a thread id. */
interface Invocable {
  invoke(
    input: { messages: BaseMessage[] },
    config: { configurable: { thread_id: string } },
  ): Promise<{ messages: readonly BaseMessage[] }>
}

/** A side built from an agent: what every side shares. */
export class AgentSide implements LangChainSide {
  /**
   * @param key - its key
   * @param stage - the stage its model and tool read
   * @param agent - the agent
   * @param files - the SQLite connections it writes (checkpointed, then closed, by the bench)
   */
  constructor(
    readonly key: SideKey,
    readonly stage: Stage,
    private readonly agent: Invocable,
    private readonly files: readonly { pragma(sql: string): unknown; close(): unknown }[],
  ) {}

  /** {@inheritDoc LangChainSide.turn} */
  async turn(script: TurnScript): Promise<number> {
    this.stage.script = script
    const out = await this.agent.invoke(
      { messages: [new HumanMessage(script.prompt)] },
      { configurable: { thread_id: THREAD } },
    )
    this.stage.script = undefined
    return out.messages.length
  }

  /** {@inheritDoc LangChainSide.checkpoint} */
  checkpoint(): void {
    for (const f of this.files) f.pragma('wal_checkpoint(TRUNCATE)')
  }

  /** {@inheritDoc LangChainSide.close} */
  close(): void {
    for (const f of this.files) f.close()
  }
}

/**
 * The middleware of (b): `trimMessages` to the last {@link WINDOW} messages before every model call.
 *
 * @returns the middleware
 */
export function trimMiddleware(): AgentMiddleware {
  return createMiddleware({
    name: 'TrimMessages',
    wrapModelCall: async (request, handler) =>
      handler({
        ...request,
        messages: await trimMessages(request.messages, {
          maxTokens: WINDOW,
          tokenCounter: (messages) => messages.length,
          strategy: 'last',
          startOn: 'human',
        }),
      }),
  })
}

/**
 * (a) or (b): a `SqliteSaver` keeping the whole state, seeded with the history in one checkpoint.
 *
 * @param key - `a` (everything to the model) or `b` (trimmed)
 * @param history - the messages before the first turn
 * @param file - its SQLite file
 * @returns the side
 */
export async function saverSide(
  key: 'a' | 'b',
  history: BaseMessage[],
  file: string,
): Promise<LangChainSide> {
  const stage = new Stage()
  const checkpointer = SqliteSaver.fromConnString(file)
  const agent = createAgent({
    model: new ScriptedChatModel(stage),
    tools: [searchTool(stage)],
    systemPrompt: SYSTEM,
    checkpointer,
    middleware: key === 'b' ? [trimMiddleware()] : [],
  })
  // The compiled graph's own updateState (the agent's is internal): one checkpoint holding the history.
  if (history.length > 0)
    await agent.graph.updateState({ configurable: { thread_id: THREAD } }, { messages: history })
  return new AgentSide(key, stage, agent, [checkpointer.db])
}

/** Each side's name in the reports. */
export const SIDES: Readonly<Record<SideKey, string>> = {
  a: '(a) SqliteSaver, whole state',
  b: '(b) SqliteSaver + trimMessages',
  c: '(c) ours + SqliteSaver (state = window)',
  d: '(d) ours, no checkpointer',
  e: '(e) no memory (the loop alone)',
}

/**
 * Opens one side over a history, ready for the turns after it.
 *
 * @param key - the side
 * @param history - the messages before the first turn
 * @param dir - a scratch directory of this point's own
 * @returns the side
 */
export async function openSide(key: SideKey, history: BaseMessage[], dir: string): Promise<LangChainSide> {
  if (key === 'a' || key === 'b') return saverSide(key, history, `${dir}/${key}-checkpoints.db`)
  if (key === 'e') return loopSide()
  return oursSide(key, history, dir)
}

/**
 * (e): the agent with nothing to remember: no checkpointer, no middleware.
 *
 * @returns the side
 */
export function loopSide(): LangChainSide {
  const stage = new Stage()
  const agent = createAgent({
    model: new ScriptedChatModel(stage),
    tools: [searchTool(stage)],
    systemPrompt: SYSTEM,
  })
  return new AgentSide('e', stage, agent, [])
}

/**
 * (c) or (d): the ledger middleware, seeded through `LedgerChatMessageHistory` in batches of
 * {@link FILL_BATCH}; (c) with a `SqliteSaver` beside it and the state kept to the window, (d) alone.
 *
 * @param key - `c` (with the saver) or `d` (without)
 * @param history - the messages before the first turn
 * @param dir - its directory
 * @returns the side
 */
export async function oursSide(key: 'c' | 'd', history: BaseMessage[], dir: string): Promise<LangChainSide> {
  const stage = new Stage()
  const store = openContextStore(`${dir}/${key}-ledger.db`)
  const seed = new LedgerChatMessageHistory({ store, sessionId: THREAD, windowSize: WINDOW })
  for (let i = 0; i < history.length; i += FILL_BATCH)
    await seed.addMessages(history.slice(i, i + FILL_BATCH))
  const checkpointer = key === 'c' ? SqliteSaver.fromConnString(`${dir}/c-checkpoints.db`) : undefined
  const agent = createAgent({
    model: new ScriptedChatModel(stage),
    tools: [searchTool(stage)],
    systemPrompt: SYSTEM,
    ...(checkpointer === undefined ? {} : { checkpointer }),
    middleware: [ledgerMiddleware({ store, windowSize: WINDOW, keepStateToWindow: key === 'c' })],
  })
  const ledger = {
    pragma: (sql: string) => store.connection().pragma(sql),
    close: () => {
      store.close()
    },
  }
  return new AgentSide(key, stage, agent, checkpointer === undefined ? [ledger] : [ledger, checkpointer.db])
}
