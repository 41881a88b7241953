/**
 * `LedgerSession`: the OpenAI Agents SDK's `Session` on the ledger. Every item the runner adds is stored
 * exactly (format `openai-agents`) and never deleted; what the runner reads back (`getItems()`) is the
 * session's window — bounded by `windowSize` / `tokenBudget`, pins and protected ranges kept, tool calls
 * with their results. On a store with branches `popItem` and a replaced suffix rewind the session — what
 * leaves is an abandoned branch, listed and searchable — and `fork` starts a branch; `clearSession`
 * (and, on a store without branches, every withdrawal) writes a marker row that hides earlier items,
 * which stay in the archive. See docs/openai-agents.md.
 */
import type { AgentInputItem, Session, SessionHistoryTransactionArgs } from '@openai/agents'
import type {
  PersistentConversationManager,
  SummarizeOptions,
} from '../../manager/persistent-conversation-manager.js'
import { isContextLedgerError } from '../../errors.js'
import { withdrawalMarker } from '../../formats/openai-agents/index.js'
import type { BranchInfo } from '../../store/branches/types.js'
import { invalidOption } from '../../store/check-args.js'
import type { ContextStore } from '../../store/context-store.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { SummarizeResult, Summarizer } from '../../summaries/summarize.js'
import type { AsyncContextStore, AsyncLedgerManager } from '../strands/async-ledger.js'
import { formatGuard, openPort, type LedgerPort, type PortWindowEntry } from '../port.js'
import { serial, sessionState, type SessionState } from '../session-queue.js'
import { WindowKeeper, warnWindowError } from '../window-keeper.js'
import { branchPort, type BranchPort } from './branching.js'
import { foldCompaction } from './compaction.js'
import { checkForkOptions, forkPoint, type LedgerForkOptions } from './fork.js'
import { asInput, type AgentItem } from './items.js'
import { checkSessionOptions, type LedgerSessionOptions, type LedgerSessionStore } from './options.js'
import { agentsSummarizer } from './summarize.js'
import { ledgerTools, type LedgerTools } from './tools.js'
import { leaveFrom, readHead, type Head, type View } from './rewind.js'
import { popStart } from './rewind-plan.js'
import { applyTransaction, ATTEMPTS, markerFor } from './transactions.js'
import { checkItems, invalidItem } from './validate.js'
import { visibleItems, type VisibleItem } from './visible.js'

/** The message format of a `LedgerSession`'s ledger session. */
export const OPENAI_AGENTS_FORMAT = 'openai-agents'

/** The core manager under a session: SQLite's, or for a PostgreSQL store its manager. */
export type LedgerManagerOf<S> = S extends AsyncContextStore
  ? AsyncLedgerManager
  : PersistentConversationManager

/**
 * A durable `Session` for `run(agent, input, { session })`: every item kept, the model given the window.
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * const session = new LedgerSession({ store, sessionId: 'support-42', windowSize: 40 })
 * const result = await run(agent, 'Where is my order?', { session })
 * ```
 */
export class LedgerSession<S extends LedgerSessionStore = ContextStore> implements Session {
  /** The core manager underneath (on PostgreSQL, its calls awaited): pins, search, history, explain. */
  readonly ledger: LedgerManagerOf<S>
  /** `search_history`, `read_history` and `pin_message` as the SDK's function tools. */
  readonly tools: LedgerTools
  private readonly port: LedgerPort
  private readonly state: SessionState
  private readonly summarizer: Summarizer | undefined
  private readonly keeper: WindowKeeper
  private readonly onError: (error: unknown) => void
  private readonly sessionId: string
  /** The options it was made with (a fork's session is made with them too). */
  private readonly options: LedgerSessionOptions<S>
  /**
   * The store's branches, or undefined for a store without them; without `rewindAppend` (either way),
   * withdrawals are markers.
   */
  private readonly branching: BranchPort | undefined
  /** Refuses a session of another format (a Strands or AI SDK session under this id). */
  private readonly checkFormat: () => Promise<void>

  /**
   * @param options - store, session id, window limits, summaries, token counter
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
   */
  constructor(options: LedgerSessionOptions<S>) {
    const { store, summarize, onError, ...limits } = checkSessionOptions(options)
    const opened = openPort(store, { ...limits, format: OPENAI_AGENTS_FORMAT })
    this.ledger = opened.ledger as LedgerManagerOf<S>
    this.port = opened.port
    this.options = options
    this.branching = branchPort(store, opened.ledger)
    this.sessionId = options.sessionId
    this.checkFormat = formatGuard(this.port, this.sessionId, OPENAI_AGENTS_FORMAT)
    this.state = sessionState(store, options.sessionId)
    this.summarizer = summarize === undefined ? undefined : agentsSummarizer(summarize)
    this.onError = onError ?? warnWindowError('context-ledger/openai-agents')
    this.keeper = new WindowKeeper(this.port, this.summarizer, this.onError)
    this.tools = ledgerTools(this.port, () => this.run(() => this.shown()))
  }

  /** The session's id. */
  getSessionId(): Promise<string> {
    return Promise.resolve(this.sessionId)
  }

  /**
   * What the model is given: the window's items, oldest first, minus withdrawn ones; with `limit`, its
   * newest `limit` (none for 0 or less). The whole archive is `history()`.
   *
   * @param limit - most items, the newest
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (typeof limit !== 'number' || Number.isNaN(limit)))
      throw invalidOption('limit', 'expected a number')
    return this.run(async () => {
      const items = (await this.shown()).map((v) => asInput(v.item))
      if (limit === undefined) return items
      return limit <= 0 ? [] : items.slice(-Math.floor(limit))
    })
  }

  /**
   * Stores items exactly (checked with the SDK's schemas, all or none), then keeps the window within its
   * limits — evicting, or folding into a summary with `summarize`. A compaction item folds what precedes
   * it into a summary that stands for that range.
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path (nothing written)
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const checked = checkItems(items)
    if (checked.length === 0) return
    await this.run(async () => {
      await this.checkFormat()
      await this.write(checked)
    })
  }

  /**
   * Takes the newest item out of the conversation and returns it. On a store with branches the session
   * is rewound to before it: the item (and any row after it) leaves as an abandoned branch, which
   * `branches()` lists and `search` finds; a popped tool result takes its call with it. On a store
   * without branches it stays in the archive, withdrawn by a marker row. Undefined when the model sees
   * nothing — or when the newest thing it sees is a summary with pinned items before it (a summary has no
   * place of its own to withdraw from; alone, it is withdrawn as a clear would).
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.run(() =>
      this.withdraw(({ shown, entries }, head) => {
        const last = shown.at(-1)
        if (last === undefined) return { result: undefined }
        const result = asInput(last.item)
        if (last.seq === undefined) {
          if (shown.length > 1) return { result: undefined }
          return { result, write: () => this.guarded(head, [withdrawalMarker({ before: head.count })]) }
        }
        const rewind = this.branching?.rewindAppend
        if (rewind === undefined) return { result, write: () => this.guarded(head, [markerFor([last])]) }
        const from = popStart(shown, last.seq)
        const carry = (c: { seqs: [number, number][]; pinned: boolean }) =>
          c.seqs.length === 0
            ? undefined
            : (withdrawalMarker({ seqs: c.seqs }, undefined, c.pinned) as AgentItem)
        return {
          result,
          write: () =>
            leaveFrom(this.port, rewind, head, from, { shown, entries }, carry, [], { reason: 'popItem' }),
        }
      }),
    )
  }

  /**
   * Starts the conversation afresh: the model sees nothing of what came before. Nothing is deleted — the
   * archive keeps every item, searchable; to erase for privacy, use `ledger` (`redact`) or the store's
   * `deleteSession`.
   */
  async clearSession(): Promise<void> {
    await this.run(() =>
      this.withdraw(({ shown }, head) => {
        if (shown.length === 0) return { result: undefined }
        const marker = withdrawalMarker(
          { before: head.count },
          undefined,
          shown.some((v) => v.pinned),
        )
        return { result: undefined, write: () => this.guarded(head, [marker]) }
      }),
    )
  }

  /**
   * The SDK's atomic, idempotent history change (`append_items`, `replace_suffix`): see
   * docs/openai-agents.md. On a store with branches a replaced suffix leaves as an abandoned branch (the
   * session rewound and continued by the replacement, in one transaction); without, it stays in the
   * archive, withdrawn by a marker.
   *
   * @throws ContextLedgerError `HISTORY_CONFLICT` (id reused with another transaction, suffix mismatch),
   *   `INVALID_MESSAGE`, `INVALID_OPTIONS`; nothing is written
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    await this.run(async () => {
      await this.checkFormat()
      await applyTransaction(this.port, this.branching, this.sessionId, args)
      // A retry of an applied operation settles too: its first attempt may have failed before it did.
      await this.keeper.settle()
    })
  }

  /**
   * Replaces what the model sees with `[compaction, ...retained]`, destroying nothing: the items are
   * appended and the compaction item stands for everything before it (a ledger summary over that range).
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` when the first item is not a compaction item
   */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    const checked = checkItems(items)
    if (checked[0]?.type !== 'compaction') throw invalidItem('[0].type', 'expected a compaction item first')
    await this.run(async () => {
      await this.checkFormat()
      await this.write(checked)
    })
  }

  /**
   * A page of the archive: every item ever added, withdrawn and evicted ones included, with the ledger's
   * facts (seq, in window, pinned, tokens); markers and repair rows too.
   *
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   */
  async history(options: { fromSeq?: number; limit?: number } = {}): Promise<LedgerEntry[]> {
    return this.port.history(options.fromSeq ?? 0, options.limit ?? 100)
  }

  /**
   * Folds the oldest part of the window into a summary written by the configured model.
   *
   * @throws ContextLedgerError `INVALID_OPTIONS` when no `summarize` was configured
   */
  async summarize(options: SummarizeOptions = {}): Promise<SummarizeResult> {
    const summarizer = this.summarizer
    if (summarizer === undefined)
      throw invalidOption(
        'summarize',
        'nothing to summarize with: pass `summarize: { model }` to LedgerSession',
      )
    return this.run(() => this.port.summarize(summarizer, options))
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return serial(this.state, fn)
  }

  private async shown(): Promise<VisibleItem[]> {
    return (await this.view()).shown
  }

  /** What the model sees and the window rows it is made from (the limits applied first if due). */
  private async view(): Promise<{ entries: PortWindowEntry[]; shown: VisibleItem[] }> {
    await this.checkFormat()
    await this.keeper.beforeRead()
    const entries = await this.port.windowEntries()
    return { entries, shown: visibleItems(entries) }
  }

  private async write(items: readonly unknown[]): Promise<void> {
    const entries = await this.port.append(items)
    try {
      await foldCompaction(this.port, entries)
    } catch (error) {
      // The compaction item is stored; what the model is handed starts there either way.
      this.onError(error)
    }
    await this.keeper.settle()
  }

  /**
   * Forks the session: a new session that shares every item up to the fork point with this one — nothing
   * is copied — and continues on its own (the session is unchanged). The fork point is `atItem` (an
   * index of `getItems()`), `atSeq` or `trackingId`, by default the newest item.
   *
   * @param options - fork point, the branch's id, who forks and why
   * @returns a session on the branch, with this session's options
   * @throws ContextLedgerError `INVALID_OPTIONS` (bad options, a store without branches),
   *   `MESSAGE_NOT_FOUND` (no such message), `SESSION_EXISTS`, `SESSION_NOT_FOUND` (nothing to fork yet)
   */
  async fork(options: LedgerForkOptions = {}): Promise<LedgerSession<S>> {
    const checked = checkForkOptions(options)
    const branches = this.branchesOrThrow()
    const { atItem: _item, atSeq: _seq, trackingId: _id, ...rest } = checked
    const info = await this.run(async () => {
      const count = await this.port.messageCount()
      const shown = checked.atItem === undefined ? [] : await this.shown()
      const given = Object.entries(rest).filter(([, v]) => v !== undefined)
      return branches.fork({ ...Object.fromEntries(given), ...forkPoint(checked, shown, count) })
    })
    return new LedgerSession<S>({ ...this.options, sessionId: info.sessionId })
  }

  /**
   * The branch tree holding this session: the root first, then each branch after its parent — forks, and
   * the abandoned branches `popItem` and replaced suffixes left — with its parent, fork point, who made
   * it, when and why. `new LedgerSession({ store, sessionId })` opens any of them.
   *
   * @throws ContextLedgerError `INVALID_OPTIONS` on a store without branches, `SESSION_NOT_FOUND`
   */
  async branches(): Promise<BranchInfo[]> {
    return this.branchesOrThrow().branches()
  }

  private branchesOrThrow(): BranchPort {
    if (this.branching !== undefined) return this.branching
    throw invalidOption('store', 'this store has no branches (an older PostgreSQL store)')
  }

  /** Appends rows when the session is still at `head` (else `APPEND_CONFLICT`, nothing written). */
  private async guarded(head: Head, rows: readonly AgentItem[]): Promise<void> {
    const rewind = this.branching?.rewindAppend
    if (rewind === undefined) await this.port.append(rows, { expectCount: head.count })
    else await rewind({ expectCount: head.count, expectNewest: head.newest }, rows)
  }

  /** Runs the write `decide` returns, against what it read; read again when another writer moved. */
  private async withdraw<T>(
    decide: (view: View, head: Head) => { result: T; write?: () => Promise<void> },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const head = await readHead(this.port, this.branching?.rewindAppend)
      const { result, write } = decide(await this.view(), head)
      if (write === undefined) return result
      try {
        await write()
        return result
      } catch (error) {
        if (!isContextLedgerError(error, 'APPEND_CONFLICT') || attempt >= ATTEMPTS) throw error
      }
    }
  }
}
