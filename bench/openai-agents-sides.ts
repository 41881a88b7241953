/**
 * The three `Session`s bench/openai-agents.ts runs turn by turn, each as the runner uses it: at the end of
 * a run `addItems(turn)`, then, before the next run, `getItems()` for the model's input.
 *
 *   (a) file:   the SDK examples' `FileSession` (bench/openai-agents-file-session.ts): a JSON file holding
 *               the whole item list, rewritten on every `addItems`, read whole by `getItems`;
 *   (b) memory: the SDK's own `MemorySession` (time only: it writes nothing, and keeps nothing either);
 *   (c) ours:   `LedgerSession` (`context-ledger/openai-agents`) on a SQLite file, windowSize 40:
 *               `getItems()` is the window.
 */
import { MemorySession, type AgentInputItem, type Session } from '@openai/agents'
import { LedgerSession } from '../src/adapters/openai-agents/index.js'
import { openContextStore, type ContextStore } from '../src/index.js'
import { FileSession } from './openai-agents-file-session.js'

/** The window of ours: the same as every other bench's. */
export const WINDOW = 40
/** Items per `addItems()` when ours is filled before the measured turns. */
const FILL_BATCH = 1_000

/** One session under test. */
export interface AgentsSide {
  /** `a`, `b` or `c`. */
  readonly key: 'a' | 'b' | 'c'
  /** The session, as the runner sees it. */
  readonly session: Session
  /** Whether what it writes is measured (not for the in-memory one). */
  readonly writes: boolean
  /** Writes what a checkpoint of SQLite's log would write now (nothing for the others). */
  checkpoint(): void
  /** Releases its file. */
  close(): void
}

/**
 * One turn as the runner does it: the run's items saved, then the next run's input read.
 *
 * @param session - the session
 * @param items - the turn's items
 * @returns what `getItems()` gave for the model's input
 */
export async function turn(session: Session, items: AgentInputItem[]): Promise<AgentInputItem[]> {
  await session.addItems(items)
  return session.getItems()
}

function plain(key: 'a' | 'b', session: Session, writes: boolean): AgentsSide {
  return { key, session, writes, checkpoint: () => undefined, close: () => undefined }
}

/** (c) ours, filled with the history in batches of {@link FILL_BATCH} items. */
async function ours(history: readonly AgentInputItem[], file: string): Promise<AgentsSide> {
  const store: ContextStore = openContextStore(file)
  const session = new LedgerSession({ store, sessionId: 'bench', windowSize: WINDOW })
  for (let i = 0; i < history.length; i += FILL_BATCH)
    await session.addItems(history.slice(i, i + FILL_BATCH))
  return {
    key: 'c',
    session,
    writes: true,
    checkpoint: () => {
      store.connection().pragma('wal_checkpoint(TRUNCATE)')
    },
    close: () => {
      store.close()
    },
  }
}

/**
 * The three sessions over the same history, ready for the turns after it.
 *
 * @param history - the items before the first turn
 * @param dir - a scratch directory of this checkpoint's own
 * @returns (a), (b), (c)
 */
export async function openSides(
  history: readonly AgentInputItem[],
  dir: string,
): Promise<[AgentsSide, AgentsSide, AgentsSide]> {
  const file = new FileSession(dir, 'bench')
  await file.write(history)
  const memory = new MemorySession({ sessionId: 'bench', initialItems: [...history] })
  return [plain('a', file, true), plain('b', memory, false), await ours(history, `${dir}/ours.db`)]
}
