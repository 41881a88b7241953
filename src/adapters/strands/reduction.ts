/**
 * The adapter's reduction policy: what `reduce` does when the model refused the input (or proactive
 * compression asks for room). Truncate oversized tool results in the window first, late results shown as
 * text included (the archive keeps the originals), then evict until the model's own token count says the
 * input fits. A truncation the store refuses is skipped and logged — eviction still runs — so overflow
 * recovery never becomes an outage.
 */
import type { LocalAgent, Logger, Model } from '@strands-agents/sdk'
import { isContextLedgerError } from '../../errors.js'
import type { PersistentConversationManager as LedgerManager } from '../../manager/persistent-conversation-manager.js'
import { TRUNCATION_THRESHOLD, truncateToolResults } from '../../messages/truncate-tool-results.js'
import type { StoredMessageData } from '../../messages/types.js'
import { truncateLateResults } from '../../store/late-tool-results.js'
import { isSummaryMessage } from '../../summaries/summary-message.js'
import { isPinned } from '../../window/array-helpers.js'
import type { NothingEvictedReason } from '../../window/plan-cut.js'
import type { AgentSync } from './sync/agent-sync.js'
import { logLine } from './log.js'

/**
 * Why a reduction could not make the window fit: the planner's reason when nothing more could leave (or
 * be folded), `'window-empty'` when nothing is left to show (the adapter never sends the model an empty
 * conversation), `'summarizer-failed'` when the summary could not be made, or `'summary-only'` when a
 * fold could take only the summary just made again (it would not shrink the window).
 */
export type ReductionFailure = NothingEvictedReason | 'window-empty' | 'summarizer-failed' | 'summary-only'

/** What the last {@link PersistentConversationManager.reduce} did. */
export interface ReductionReport {
  /** `'overflow'` when the model refused the input, `'proactive'` when the threshold was reached. */
  readonly trigger: 'overflow' | 'proactive'
  /** Messages whose tool results the window now shows truncated (their originals stay in the archive). */
  readonly truncated: number
  /** Truncations the store refused (logged); those messages were left for eviction. */
  readonly truncationsRefused: number
  /** Messages that left the window. */
  readonly evicted: number
  /** Window messages folded into a new summary (with `summarize`), the previous summary included. */
  readonly summarized: number
  /**
   * Whether the model's token count says the window now fits (under the context window limit, or the
   * compression threshold); undefined when it could not be counted.
   */
  readonly fits: boolean | undefined
  /**
   * Set when the reduction fell short: nothing could be evicted when eviction was needed, or, on an
   * overflow, the window still does not fit and nothing more can go (then `reduce` returned false and
   * Strands raised its `ContextWindowOverflowError`).
   */
  readonly reason: ReductionFailure | undefined
  /** Messages in the window afterwards. */
  readonly windowMessages: number
  /** The window's tokens afterwards, by the ledger's token counter (truncated results at full size). */
  readonly windowTokens: number
  /** The model's own count of its input afterwards (messages, system prompt, tool specs); undefined when it cannot count. */
  readonly modelTokens: number | undefined
  /** Messages that must stay in the window (pins, protected ranges, their tool partners, a lead). */
  readonly protectedMessages: number
}

/** What one reduction needs to know. */
export interface ReductionRequest {
  /** The agent whose window is reduced. */
  readonly agent: LocalAgent
  /** Its model, for token counts. */
  readonly model: Model
  /** Whether the model refused the input (false: proactive compression). */
  readonly overflow: boolean
  /** For proactive compression: the utilization ratio to get under. */
  readonly threshold: number | undefined
  /** Whether to truncate oversized tool results before evicting. */
  readonly truncate: boolean
  /** Where to report what could not be done. */
  readonly logger: Logger
}

/**
 * Makes room in the window (see the module comment); `agent.messages` is the window afterwards.
 *
 * @param ledger - the core manager of the session
 * @param sync - the agent's sync, to show the window
 * @param request - what triggered the reduction and how
 * @returns whether anything changed, and the report
 */
export async function reduceWindow(
  ledger: LedgerManager,
  sync: AgentSync,
  request: ReductionRequest,
): Promise<{ reduced: boolean; report: ReductionReport }> {
  const { agent, model, overflow, threshold, logger } = request
  const truncate = (): { truncated: number; refused: number } =>
    request.truncate ? truncateWindow(ledger, logger) : { truncated: 0, refused: 0 }
  let { truncated, refused: truncationsRefused } = truncate()
  let refreshed = false
  let evicted = 0
  let protectedCount = 0
  let reason: ReductionFailure | undefined
  let count: Count = { fits: false, tokens: undefined }
  if (truncated > 0) {
    sync.show(true)
    count = await countInput(agent, model, threshold)
  }
  // On an overflow, evict until the count says it fits; stop when it cannot be counted (the agent's
  // retry calls again if the model still refuses) or when nothing more can go. Proactive compression is
  // best effort: one round, so a prompt that is large for other reasons (tool specs, a huge system
  // prompt) does not empty the window before the model has even refused anything.
  while (count.fits === false) {
    const result = ledger.reduce({ overflow })
    protectedCount = result.protectedCount
    if (result.evicted === 0) {
      // On a shared session another writer may have changed the window since it was truncated and
      // counted (a new oversized tool result, a truncation of its own): once, truncate and count again.
      if (overflow && !refreshed) {
        refreshed = true
        const again = truncate()
        truncated += again.truncated
        truncationsRefused += again.refused
        sync.show(true)
        if (agent.messages.length === 0) break
        count = await countInput(agent, model, threshold)
        continue
      }
      reason = result.reason
      break
    }
    evicted += result.evicted
    sync.show(true)
    if (agent.messages.length === 0) break
    count = await countInput(agent, model, threshold)
    if (!overflow) break
  }
  sync.show(false)
  const empty = agent.messages.length === 0
  // The first round evicts without counting (the model just refused); count now so the report says.
  if (!empty && count.tokens === undefined && count.fits === false)
    count = await countInput(agent, model, threshold)
  // An empty window is never handed to the model: a retry would send it an empty conversation.
  if (empty) reason = 'window-empty'
  else if (overflow && count.fits === false) reason ??= 'no-valid-cut'
  else if (evicted > 0) reason = undefined
  const session = ledger.store.session(ledger.sessionId)
  const report: ReductionReport = {
    trigger: overflow ? 'overflow' : 'proactive',
    truncated,
    truncationsRefused,
    evicted,
    summarized: 0,
    fits: empty ? false : count.fits,
    reason,
    windowMessages: agent.messages.length,
    windowTokens: session?.windowTokens ?? 0,
    modelTokens: count.tokens,
    protectedMessages: protectedCount,
  }
  // On an overflow, true means "retry": only when something changed and the count does not say it is
  // still too much. Proactively, true just says something changed.
  const reduced = !empty && truncated + evicted > 0 && (!overflow || count.fits !== false)
  if (overflow && !reduced) logger.warn(unrecoverable(ledger.sessionId, report, model))
  return { reduced, report }
}

/** The log line of an overflow the window cannot be brought under. */
function unrecoverable(sessionId: string, report: ReductionReport, model: Model): string {
  let limit: number | undefined
  try {
    limit = model.getConfig().contextWindowLimit
  } catch {
    limit = undefined
  }
  return logLine(
    {
      session_id: sessionId,
      window_messages: report.windowMessages,
      window_tokens: report.windowTokens,
      model_tokens: report.modelTokens,
      context_window_limit: limit,
      truncated: report.truncated,
      evicted: report.evicted,
      reason: report.reason,
      protected_messages: report.protectedMessages,
    },
    (report.reason === 'window-empty'
      ? 'context window overflow not recovered: nothing would be left to send; the model error is raised'
      : 'context window overflow not recovered: the window is still over the limit and nothing more can leave it; the model error is raised') +
      (report.protectedMessages > 0
        ? `; ${report.protectedMessages} protected message(s) (pins, protected ranges, their tool partners) must stay: unpin some (store.pinnedMessages({ sessionId }) lists them) or narrow protectedMessages`
        : ''),
  )
}

/**
 * Truncates every unpinned oversized tool result in the window, oldest first. A truncated form the store
 * refuses (say, a message stored under looser limits than the store now has) is logged and skipped: the
 * message stays whole and eviction deals with it.
 *
 * @param ledger - the core manager of the session
 * @param logger - where refused truncations are reported
 * @returns how many messages the window now shows truncated, and how many truncations were refused
 */
export function truncateWindow(
  ledger: LedgerManager,
  logger: Logger,
): { truncated: number; refused: number } {
  const window = ledger.window()
  let truncated = 0
  let refused = 0
  for (let i = 0; i < window.length; i++) {
    // A pinned message and its tool-pair partner stay whole, as in Strands.
    if (isPinned(window, i)) continue
    const message = window[i] as (typeof window)[number]
    // A summary holds no tool result, and is no message of the archive to show another form of.
    if (isSummaryMessage(message)) continue
    const shown = withLateResultsTruncated(ledger, truncateToolResults(message))
    if (shown === message) continue
    try {
      ledger.setWindowContent({ trackingId: message.trackingId }, shown)
      truncated++
    } catch (error) {
      if (!isContextLedgerError(error)) throw error
      refused++
      logger.warn(
        logLine(
          {
            session_id: ledger.sessionId,
            tracking_id: message.trackingId,
            code: error.code,
            path: error.path,
          },
          `tool result truncation refused by the store, leaving the message to eviction: ${error.message}`,
        ),
      )
    }
  }
  return { truncated, refused }
}

/**
 * `message` with the text of its late tool results truncated too: a late result is shown as a text block
 * (in the newest turn it cannot be evicted), so it needs the truncation a tool result gets. Only a user
 * message with an oversized text block can need it, so only those are looked up; the store's `late` mark,
 * not the text, says which blocks are late results.
 */
function withLateResultsTruncated(ledger: LedgerManager, message: StoredMessageData): StoredMessageData {
  if (message.role !== 'user') return message
  // The length test truncateLongText applies, without building the truncated text only to drop it.
  if (!message.content.some((b) => 'text' in b && b.text.length > TRUNCATION_THRESHOLD)) return message
  const entry = ledger.message({ trackingId: message.trackingId })
  return entry.late ? truncateLateResults(message, entry.message) : message
}

/** The model's count of its input, and whether that fits. */
export interface Count {
  /** Whether it fits; undefined when the model cannot count. */
  readonly fits: boolean | undefined
  /** The model's token count, when it could count. */
  readonly tokens: number | undefined
}

/**
 * Counts the agent's input by the model's own count, and whether it fits: within its context window on an
 * overflow, under the compression threshold proactively.
 *
 * @param agent - the agent whose messages, system prompt and tools are counted
 * @param model - the model that counts
 * @param threshold - proactively, the utilization ratio to get under; undefined on an overflow
 * @returns the count and whether it fits (both undefined when the model cannot count)
 */
export async function countInput(
  agent: LocalAgent,
  model: Model,
  threshold: number | undefined,
): Promise<Count> {
  try {
    const toolSpecs = agent.toolRegistry.list().map((tool) => tool.toolSpec)
    const tokens = await model.countTokens(agent.messages, {
      toolSpecs,
      ...(agent.systemPrompt === undefined ? {} : { systemPrompt: agent.systemPrompt }),
    })
    const ratio = model.estimateUtilization(tokens)
    return { fits: threshold === undefined ? ratio <= 1 : ratio < threshold, tokens }
  } catch {
    return { fits: undefined, tokens: undefined }
  }
}
