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
import type { BranchInfo } from '../../store/context-store.js'
import type { AsyncContextStore, AsyncLedgerManager } from '../strands/async-ledger.js'
import type { MessageAlternative } from './alternatives.js'
import { Archive, sessionState } from './archive.js'
import { branchCalls, type BranchChange } from './branch-calls.js'
import { branchPort } from './branch-port.js'
import { onStepEndOf, prepareStepOf, type PrepareStepInput, type StepEndInput } from './loop.js'
import { checkSessionOptions, type LedgerSessionOptions, type LedgerSessionStore } from './options.js'
import { formatGuard, openPort } from '../port.js'
import { WindowKeeper, warnWindowError } from '../window-keeper.js'
import { aiSdkSummarizer } from './summarize.js'
import { ledgerTools, type LedgerTools, type ToModel } from './tools.js'
import { loadUIMessages, type LoadUIMessagesOptions } from './ui-messages.js'
import { checkRequest, type ChatRequest, type MessageTarget } from './rewind-points.js'
import { saveUIRequest } from './save-request.js'
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
   * Saves what a `useChat` request sends and what `toUIMessageStreamResponse`'s `onEnd` hands over (a
   * `'ui'` session): idempotent by id. Pass the request's `{ trigger, messageId }` and an edit
   * (`sendMessage({ text, messageId })`) or a regeneration (`regenerate()`, of any answer) rewinds the
   * session first: what followed leaves the conversation as an abandoned branch. Without them, a list
   * that regenerates the newest answer still rewinds; any other list that forks the history is refused.
   *
   * @param messages - the request's (or `onEnd`'s) messages
   * @param request - the request's `trigger` and `messageId`, as `useChat`'s transport sends them
   * @throws ContextLedgerError `INVALID_MESSAGE` with a path; `MESSAGE_NOT_FOUND` at `messageId` for an
   *   id the chat does not have; `INVALID_OPTIONS` at `messageId` for a list that does not match it
   *   (nothing written)
   */
  saveUIMessages(messages: readonly UIMessage[], request?: ChatRequest): Promise<LedgerEntry[]>
  /**
   * Regenerates an answer: rewinds the session so the answer (by default the newest user message's) and
   * everything after it leave the conversation, as an abandoned branch; then run the model on
   * `window()`. A user message as target keeps it and regenerates its answer; an assistant message goes
   * (`useChat`'s `regenerate({ messageId })`).
   *
   * @param target - `{ messageId }` (a UIMessage id, or the ledger's trackingId) or `{ seq }`
   * @returns the abandoned branch and how many messages left
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (path `messageId` / `seq`); `INVALID_OPTIONS` for a tool message
   */
  regenerate(target?: MessageTarget): Promise<BranchChange>
  /**
   * Edits a message the way `useChat`'s `sendMessage({ text, messageId })` does: the conversation goes
   * on from before it with `message` (a UI message without an id keeps the old one's); the old message
   * and everything after it leave as an abandoned branch. Then run the model on `window()`. Sent
   * unchanged, the message stays and only what followed it leaves. The first message of a conversation
   * stays the row (the store keeps at least one message): the new version is shown in its place, in the
   * window and on the screen (an edit in the edit log), and what followed it leaves.
   *
   * @param target - the message to replace: `{ messageId }` or `{ seq }`
   * @param message - its new version (checked by the SDK's validators before anything is written)
   * @returns the abandoned branch, how many messages left, the new message's entry
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (path `messageId` / `seq`); `INVALID_MESSAGE` with a path
   */
  replaceMessage(target: MessageTarget, message: ModelMessage | UIMessage): Promise<BranchChange>
  /** The tree the session belongs to (the store's `branches`): root first, then depth first; [] before the first write. */
  branches(): Promise<BranchInfo[]>
  /**
   * Every version of a message the tree holds after the same earlier messages (the answers a
   * regeneration replaced, the messages an edit replaced, the current one), oldest first, each with the
   * branch that goes on from it: open that branch's `sessionId` (`useChat({ id })`, `ledgerSession`) to
   * switch to it. Any version's id names the list: the current one's, or one a regeneration or an edit
   * replaced (it lives in an abandoned branch of the tree) — the same versions, in the same order, the
   * session's own marked `current`.
   *
   * @param target - `{ messageId }` of any version in the session's tree, or `{ seq }` of the conversation
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND` (path `messageId` / `seq`) when no branch of the tree has it
   */
  alternatives(target: MessageTarget): Promise<MessageAlternative<ModelMessage | UIMessage>[]>
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
  const branches = branchPort(store, options.sessionId)
  const context = { sessionId: options.sessionId, format, port, branches, archive, checkFormat, enforce }
  const saveUI = (messages: unknown, regenerate: boolean, request?: unknown) =>
    archive.serial(async () => {
      return saveUIRequest(context, await checkUIMessages(messages), regenerate, checkRequest(request))
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
    saveUIMessages: async (messages, request) => {
      needUI('saveUIMessages')
      return saveUI(messages, true, request)
    },
    ...branchCalls(context),
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
