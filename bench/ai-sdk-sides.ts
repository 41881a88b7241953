/**
 * The three ways a chat route keeps an AI SDK chat, as `bench/ai-sdk-chat.ts` runs them turn by turn:
 *
 *   (a) docs:  what the AI SDK docs teach (`ai/docs/04-ai-sdk-ui/03-chatbot-message-persistence.mdx`):
 *              `loadChat` reads and parses the chat's JSON file, the new user message is added, the model
 *              gets `convertToModelMessages` of all of it, and `saveChat` writes the whole `UIMessage[]`
 *              back (`JSON.stringify(messages, null, 2)`, `fs/promises` `writeFile`) when the answer is in;
 *   (b) prune: the same, the model's input passed through `pruneMessages({ reasoning:
 *              'before-last-message', toolCalls: 'before-last-2-messages' })` (the docs' window tool);
 *   (c) ours:  the core store and manager directly (not the `context-ledger/ai-sdk` adapter, written at the
 *              same time): the user message appended to a ledger session (`format: 'ai-sdk/ui'`, a SQLite
 *              file), `applyWindow()`, `convertToModelMessages(window())` for the model, and the answer
 *              appended when it is in — two transactions a turn, as a route that saves the user's message
 *              before calling the model does (one would be cheaper).
 *
 * None of them validates (`validateUIMessages`); the ledger's append checks every message it stores anyway.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { convertToModelMessages, pruneMessages, type ModelMessage, type UIMessage } from 'ai'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../src/index.js'
import type { ChatMessage } from './ai-sdk-fixtures.js'

/** The window of ours: the same as every other bench's. */
export const WINDOW = 40
/** Ours trims to this share of the window when it is over (row h's setting): a stable prefix between trims. */
export const LOW_WATER_MARK = 0.75
/** Messages per `append()` when a session is filled before the measured turns. */
const FILL_BATCH = 1_000

/** One way of keeping the chat. */
export interface ChatSide {
  /** `a`, `b` or `c`. */
  readonly key: 'a' | 'b' | 'c'
  /**
   * One turn: the user's message arrives, the model's input is built, the answer is saved.
   *
   * @param user - the user's message
   * @param answer - the assistant's message (what the model streamed)
   * @returns the model's input
   */
  turn(user: ChatMessage, answer: ChatMessage): Promise<ModelMessage[]>
  /** Writes what a checkpoint of SQLite's log would write now (nothing for a JSON file). */
  checkpoint(): void
  /** Releases the file. */
  close(): void
}

/** UI messages as the SDK types them: the fixtures are the SDK's shapes (checked at start). */
function ui(messages: readonly ChatMessage[]): UIMessage[] {
  return messages as unknown as UIMessage[]
}

/** (a) and (b): the docs' file store, with or without `pruneMessages` for the model's input. */
class DocsSide implements ChatSide {
  /**
   * @param key - `a` (all of it) or `b` (pruned)
   * @param file - the chat's JSON file
   */
  constructor(
    readonly key: 'a' | 'b',
    private readonly file: string,
  ) {}

  /** The docs' `saveChat`. */
  async saveChat(messages: readonly ChatMessage[]): Promise<void> {
    await writeFile(this.file, JSON.stringify(messages, null, 2))
  }

  /** The docs' `loadChat`. */
  private async loadChat(): Promise<ChatMessage[]> {
    return JSON.parse(await readFile(this.file, 'utf8')) as ChatMessage[]
  }

  async turn(user: ChatMessage, answer: ChatMessage): Promise<ModelMessage[]> {
    const messages = [...(await this.loadChat()), user]
    const all = await convertToModelMessages(ui(messages))
    const input =
      this.key === 'a'
        ? all
        : pruneMessages({
            messages: all,
            reasoning: 'before-last-message',
            toolCalls: 'before-last-2-messages',
          })
    await this.saveChat([...messages, answer])
    return input
  }

  checkpoint(): void {}

  close(): void {}
}

/** (c) ours: a ledger session of `ai-sdk/ui` messages on a SQLite file. */
class LedgerSide implements ChatSide {
  readonly key = 'c'
  private readonly store: ContextStore
  private readonly manager: PersistentConversationManager

  /** @param file - the SQLite file */
  constructor(file: string) {
    this.store = openContextStore(file)
    this.manager = new PersistentConversationManager({
      store: this.store,
      sessionId: 'chat',
      format: 'ai-sdk/ui',
      windowSize: WINDOW,
      lowWaterMark: LOW_WATER_MARK,
    })
  }

  /** Appends a history in batches of 1,000 messages, applying the window after each. */
  fill(messages: readonly ChatMessage[]): void {
    for (let i = 0; i < messages.length; i += FILL_BATCH) {
      this.manager.append(ui(messages.slice(i, i + FILL_BATCH)) as never)
      this.manager.applyWindow()
    }
  }

  async turn(user: ChatMessage, answer: ChatMessage): Promise<ModelMessage[]> {
    // The manager's types are Strands' (`MessageData`); with `format: 'ai-sdk/ui'` it takes UI messages.
    this.manager.append(user as never)
    this.manager.applyWindow()
    const input = await convertToModelMessages(this.manager.window() as unknown as UIMessage[])
    this.manager.append(answer as never)
    return input
  }

  checkpoint(): void {
    this.store.connection().pragma('wal_checkpoint(TRUNCATE)')
  }

  close(): void {
    this.store.close()
  }
}

/**
 * The three sides over the same history, ready for the turns after it.
 *
 * @param history - the messages before the first turn
 * @param path - a path in a scratch directory, per side file name
 * @returns (a), (b), (c)
 */
export async function openSides(
  history: readonly ChatMessage[],
  path: (name: string) => string,
): Promise<[ChatSide, ChatSide, ChatSide]> {
  const a = new DocsSide('a', path('a.json'))
  const b = new DocsSide('b', path('b.json'))
  await a.saveChat(history)
  await b.saveChat(history)
  const c = new LedgerSide(path('c.db'))
  c.fill(history)
  return [a, b, c]
}
