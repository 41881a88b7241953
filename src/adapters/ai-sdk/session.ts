/**
 * `ledgerSession`: one ledger session seen from the AI SDK — ModelMessages for an agent loop (`'model'`)
 * or UIMessages for a chat UI (`'ui'`), stored exactly, and the window given back as the ModelMessages a
 * model call takes. Every call returns a Promise, as the SDK's own do.
 */
import { convertToModelMessages } from 'ai'
import type { ModelMessage, UIMessage } from 'ai'
import { z } from 'zod'
import type { PersistentConversationManager } from '../../manager/persistent-conversation-manager.js'
import { type SummarizeOptions } from '../../manager/persistent-conversation-manager.js'
import { invalidOption } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { SummarizeResult } from '../../summaries/summarize.js'
import { optionsError } from '../../window/window-options.js'
import type { ContextStore } from '../../store/context-store.js'
import type { AsyncContextStore, AsyncLedgerManager } from '../strands/async-ledger.js'
import { Archive, sessionState } from './archive.js'
import { onStepEndOf, prepareStepOf, type PrepareStepInput, type StepEndInput } from './loop.js'
import { checkSessionOptions, type LedgerSessionOptions, type LedgerSessionStore } from './options.js'
import { formatGuard, openPort } from '../port.js'
import { WindowKeeper, warnWindowError } from '../window-keeper.js'
import { aiSdkSummarizer } from './summarize.js'
import { ledgerTools, type LedgerTools, type ToModel } from './tools.js'
import { loadUIMessages, planSave, writeSave, type LoadUIMessagesOptions } from './ui-messages.js'
import { checkModelMessages, checkUIMessages, messageArray } from './validate.js'

export type { LedgerSessionOptions, LedgerSessionStore } from './options.js'

/**
 * The core manager under a session: SQLite's `PersistentConversationManager`, or for a PostgreSQL store
 * its manager (the same calls, each returning a Promise).
 */
export type LedgerManagerOf<S> = S extends AsyncContextStore
  ? AsyncLedgerManager
  : PersistentConversationManager

/** A ledger session for the AI SDK (see {@link ledgerSession}). */
export interface LedgerSession<S extends LedgerSessionStore = ContextStore> {
  /** The session's format. */
  readonly format: 'model' | 'ui'
  /**
   * The core manager underneath: `context-ledger`'s `PersistentConversationManager`, or on a PostgreSQL
   * store the PostgreSQL manager (its calls awaited).
   */
  readonly ledger: LedgerManagerOf<S>
  /**
   * Archives messages (ModelMessages, or UIMessages in a `'ui'` session) exactly once — a message object
   * the session archived already is skipped, as is a UIMessage whose id is stored with equal content —
   * after checking them with the SDK's validators; then applies the window limits.
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path (nothing written)
   */
  append(messages: readonly ModelMessage[] | readonly UIMessage[]): Promise<LedgerEntry[]>
  /** The window as the ModelMessages a model call takes (`convertToModelMessages` in a `'ui'` session). */
  window(): Promise<ModelMessage[]>
  /**
   * For `prepareStep` of `generateText` / `streamText` / `ToolLoopAgent` (a `'model'` session): archives
   * the call's new input and the previous steps' response messages, once, and gives the step the window.
   */
  readonly prepareStep: (options: PrepareStepInput) => Promise<{ messages: ModelMessage[] }>
  /** For `onStepEnd`: archives each step's response messages, once (the final step's too). */
  readonly onStepEnd: (event: StepEndInput) => Promise<void>
  /** A `'ui'` session's messages for the screen, oldest first, ids kept; `limit`/`before` page them. */
  loadUIMessages(options?: LoadUIMessagesOptions): Promise<UIMessage[]>
  /**
   * Saves what `toUIMessageStreamResponse`'s `onFinish` hands over (a `'ui'` session): idempotent by id;
   * a regenerated last answer takes the old one's place in the window, the archive keeps both.
   *
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path (nothing written)
   */
  saveUIMessages(messages: readonly UIMessage[]): Promise<LedgerEntry[]>
  /** `search_history`, `read_history`, `pin_message` as AI SDK tools. */
  readonly tools: LedgerTools
  /**
   * Folds the oldest part of the window into a summary written by the configured model (the core's
   * `summarize` rules: `summaryRatio`, `preserveRecentMessages`).
   *
   * @throws ContextLedgerError `INVALID_OPTIONS` when no `summarize` model was configured
   */
  summarize(options?: SummarizeOptions): Promise<SummarizeResult>
}

const loadOptions = z.strictObject({
  limit: z.number().int().min(1).optional(),
  before: z.string().optional(),
})

/**
 * Opens a ledger session for the AI SDK.
 *
 * @param options - store, session, format, window limits, summaries and token counter
 * @returns the session
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad or unknown option
 *
 * @example
 * ```ts
 * const session = ledgerSession({ store: openContextStore('agent.db'), sessionId: 'support-42', windowSize: 40 })
 * await session.append([{ role: 'user', content: 'Plan the migration' }])
 * const result = await generateText({ model, tools, messages: await session.window(),
 *   prepareStep: session.prepareStep, onStepEnd: session.onStepEnd, stopWhen: stepCountIs(20) })
 * ```
 */
export function ledgerSession<S extends LedgerSessionStore = ContextStore>(
  options: LedgerSessionOptions<S>,
): LedgerSession<S> {
  const { store, format: given, summarize, tools, onError, ...limits } = checkSessionOptions(options)
  const format = given ?? 'model'
  const core = { ...limits, format: format === 'model' ? 'ai-sdk/model' : 'ai-sdk/ui' } as const
  const { ledger, port } = openPort(store, core)
  const toModel: ToModel = (messages) =>
    convertToModelMessages(messages, tools === undefined ? {} : { tools })
  const summarizer = summarize === undefined ? undefined : aiSdkSummarizer(summarize, format, toModel)
  // Never fails a write once its messages are stored (see window-keeper.ts).
  const keeper = new WindowKeeper(port, summarizer, onError ?? warnWindowError('context-ledger/ai-sdk'))
  const enforce = () => keeper.settle()
  const archive = new Archive(port, enforce, sessionState(store, options.sessionId))
  const fromLedger = new WeakSet<object>()
  // A session of another format (a 'ui' session opened as 'model', or a Strands one) is refused on reads
  // too, as appends refuse it.
  const checkFormat = formatGuard(port, options.sessionId, core.format)
  const readWindow = async (): Promise<ModelMessage[]> => {
    await checkFormat()
    await keeper.beforeRead()
    const stored = await port.window()
    const messages =
      format === 'model'
        ? (stored as unknown as ModelMessage[])
        : await toModel(stored as unknown as UIMessage[])
    for (const m of messages) fromLedger.add(m)
    return messages
  }
  const needUI = (call: string) => {
    if (format !== 'ui')
      throw invalidOption('format', `${call}() is for a 'ui' session; this one holds ModelMessages`)
  }
  const loop = {
    archive,
    check: (m: unknown[]) => checkModelMessages(m),
    window: readWindow,
    fromLedger: (m: unknown) => typeof m === 'object' && m !== null && fromLedger.has(m),
  }
  const saveUI = (messages: unknown, regenerate: boolean) =>
    archive.serial(async () => {
      const checked = await checkUIMessages(messages)
      return writeSave(port, await planSave(port, checked, regenerate), enforce)
    })
  return {
    format,
    ledger: ledger as LedgerManagerOf<S>,
    append: (messages) =>
      format === 'ui'
        ? saveUI(messages, false)
        : archive.serial(() => archive.write(messageArray(messages), loop.check)),
    window: () => archive.serial(readWindow),
    prepareStep: prepareStepOf(loop),
    onStepEnd: onStepEndOf(loop),
    loadUIMessages: (o = {}) =>
      archive.serial(async () => {
        needUI('loadUIMessages')
        await checkFormat()
        const parsed = loadOptions.safeParse(o)
        if (!parsed.success) throw optionsError(parsed.error, 'loadUIMessages')
        return loadUIMessages(port, parsed.data)
      }),
    saveUIMessages: async (messages) => {
      needUI('saveUIMessages')
      return saveUI(messages, true)
    },
    tools: ledgerTools(port, format, toModel),
    summarize: (o = {}) =>
      archive.serial(async () => {
        if (summarizer === undefined)
          throw invalidOption(
            'summarize',
            'no model to summarize with: pass `summarize: { model }` to ledgerSession',
          )
        return port.summarize(summarizer, o)
      }),
  }
}
