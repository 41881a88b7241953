/**
 * The adapter's reduction policy: what `reduce` does when the model refused the input (or proactive
 * compression asks for room). Truncate oversized tool results in the window first (the archive keeps the
 * originals), then evict until the model's own token count says the input fits. A truncation the store
 * refuses is skipped and logged — eviction still runs — so overflow recovery never becomes an outage.
 */
import type { LocalAgent, Logger, Model } from '@strands-agents/sdk'
import {
  isContextLedgerError,
  isPinned,
  truncateToolResults,
  type NothingEvictedReason,
  type PersistentConversationManager as LedgerManager,
} from '../../index.js'
import type { AgentSync } from './agent-sync.js'
import { logLine } from './log.js'

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
  /**
   * Whether the model's token count says the window now fits (under the context window limit, or the
   * compression threshold); undefined when it could not be counted.
   */
  readonly fits: boolean | undefined
  /** Why nothing could be evicted, when eviction was needed and nothing went. */
  readonly reason: NothingEvictedReason | undefined
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
  const { agent, model, overflow, threshold } = request
  const trigger = overflow ? 'overflow' : 'proactive'
  const { truncated, refused: truncationsRefused } = request.truncate
    ? truncateWindow(ledger, request.logger)
    : { truncated: 0, refused: 0 }
  let evicted = 0
  let reason: NothingEvictedReason | undefined
  let fits: boolean | undefined = false
  if (truncated > 0) {
    sync.show(true)
    fits = await fitsModel(agent, model, threshold)
  }
  // On an overflow, evict until the count says it fits; stop when it cannot be counted (the agent's
  // retry calls again if the model still refuses) or when nothing more can go. Proactive compression is
  // best effort: one round, so a prompt that is large for other reasons (tool specs, a huge system
  // prompt) does not empty the window before the model has even refused anything.
  while (fits === false) {
    const result = ledger.reduce({ overflow })
    if (result.evicted === 0) {
      reason = result.reason
      break
    }
    evicted += result.evicted
    sync.show(true)
    fits = await fitsModel(agent, model, threshold)
    if (!overflow) break
  }
  return {
    reduced: truncated + evicted > 0,
    report: {
      trigger,
      truncated,
      truncationsRefused,
      evicted,
      fits,
      reason: evicted === 0 ? reason : undefined,
    },
  }
}

/**
 * Truncates every unpinned oversized tool result in the window, oldest first. A truncated form the store
 * refuses (say, a message stored under looser limits than the store now has) is logged and skipped: the
 * message stays whole and eviction deals with it.
 */
function truncateWindow(ledger: LedgerManager, logger: Logger): { truncated: number; refused: number } {
  const window = ledger.window()
  let truncated = 0
  let refused = 0
  for (let i = 0; i < window.length; i++) {
    // A pinned message and its tool-pair partner stay whole, as in Strands.
    if (isPinned(window, i)) continue
    const message = window[i] as (typeof window)[number]
    const shown = truncateToolResults(message)
    if (shown === message) continue
    try {
      ledger.store.setWindowContent(ledger.sessionId, { trackingId: message.trackingId }, shown)
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
 * Whether the agent's messages fit by the model's own count: within its context window on an overflow,
 * under the compression threshold proactively. Undefined when the model cannot count.
 */
async function fitsModel(
  agent: LocalAgent,
  model: Model,
  threshold: number | undefined,
): Promise<boolean | undefined> {
  try {
    const toolSpecs = agent.toolRegistry.list().map((tool) => tool.toolSpec)
    const tokens = await model.countTokens(agent.messages, {
      toolSpecs,
      ...(agent.systemPrompt === undefined ? {} : { systemPrompt: agent.systemPrompt }),
    })
    const ratio = model.estimateUtilization(tokens)
    return threshold === undefined ? ratio <= 1 : ratio < threshold
  } catch {
    return undefined
  }
}
