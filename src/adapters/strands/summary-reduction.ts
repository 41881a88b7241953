/**
 * Reductions with the `summarize` option: what Strands' `SummarizingConversationManager` does to
 * `agent.messages`, done on the ledger. An overflow (or proactive compression) folds the oldest part of
 * the window into a summary written by a model (`ledger.summarize`, Strands' ratio rule); after an
 * invocation, a window over `windowSize` or `tokenBudget` folds its excess (`ledger.summarizeExcess`)
 * instead of sliding. The raw messages stay in the archive; the summary stands for them.
 *
 * Failures follow Strands 1.19: on an overflow a summarizer that fails, or a window with no valid split
 * point, raises the error with the overflow as its `cause`; proactively, and after an invocation, it is
 * logged and nothing changes.
 */
import type { LocalAgent, Logger, Model } from '@strands-agents/sdk'
import { isContextLedgerError } from '../../errors.js'
import { ratioFoldRequest } from '../../manager/manager-options.js'
import type { PersistentConversationManager as LedgerManager } from '../../manager/persistent-conversation-manager.js'
import type { FoldPlan } from '../../store/summaries.js'
import type { SummarizeResult, Summarizer } from '../../summaries/summarize.js'
import type { FoldRequest, NothingEvictedReason } from '../../window/plan-types.js'
import { modelSummarizer } from './generate-summary.js'
import { logLine } from './log.js'
import type { ResolvedSummarize } from './options.js'
import { countInput, truncateWindow, type ReductionReport } from './reduction.js'
import type { AgentSync } from './sync/agent-sync.js'

/** The message Strands 1.19 raises when no split point leaves the summary followed by a valid message. */
const NO_SPLIT_POINT = 'Unable to find valid split point for summarization'

/** What one summarizing reduction needs to know. */
export interface SummaryReductionRequest {
  /** The agent whose window is reduced. */
  readonly agent: LocalAgent
  /** The model Strands passed to `reduce`: it writes the summary unless `summarize.model` is set. */
  readonly model: Model
  /** The model's overflow error; undefined for proactive compression. */
  readonly error: Error | undefined
  /** For proactive compression: the utilization ratio to get under (when truncating first). */
  readonly threshold: number | undefined
  /** Whether to truncate oversized tool results before summarizing (`truncateToolResults: true`). */
  readonly truncate: boolean
  /** How summaries are made. */
  readonly settings: ResolvedSummarize
  /** Where to report what could not be done. */
  readonly logger: Logger
}

/** What a summarizing reduction came to. */
export interface SummaryReduction {
  /** Whether the window changed (on an overflow: the agent retries). */
  readonly reduced: boolean
  /** What it did. */
  readonly report: ReductionReport
  /** On an overflow, the error to raise instead of returning (its `cause` is the overflow error). */
  readonly raise: Error | undefined
}

/** A summarizer that remembers what it threw: the ledger wraps it in `SUMMARIZER_FAILED`. */
function watched(summarizer: Summarizer): { summarizer: Summarizer; thrown: { error?: unknown } } {
  const thrown: { error?: unknown } = {}
  return {
    thrown,
    summarizer: async (messages, request) => {
      try {
        return await summarizer(messages, request)
      } catch (error) {
        thrown.error = error
        throw error
      }
    },
  }
}

/**
 * Folds the oldest part of the window into a summary, as Strands' `SummarizingConversationManager`
 * reduces (see the module comment); `agent.messages` is the window afterwards.
 *
 * @param ledger - the core manager of the session
 * @param sync - the agent's sync, to show the window
 * @param request - what triggered the reduction and how summaries are made
 * @returns whether the window changed, the report, and on an overflow the error to raise when the fold
 *   failed
 */
export async function reduceBySummary(
  ledger: LedgerManager,
  sync: AgentSync,
  request: SummaryReductionRequest,
): Promise<SummaryReduction> {
  const { agent, model, error, logger, settings } = request
  const overflow = error !== undefined
  let truncated = 0
  let truncationsRefused = 0
  let fits: boolean | undefined
  const report = (summarized: number, reason: ReductionReport['reason']): ReductionReport => ({
    trigger: overflow ? 'overflow' : 'proactive',
    truncated,
    truncationsRefused,
    evicted: 0,
    summarized,
    fits: undefined,
    reason,
    windowMessages: agent.messages.length,
    windowTokens: ledger.store.session(ledger.sessionId)?.windowTokens ?? 0,
    modelTokens: undefined,
    protectedMessages: 0,
  })
  if (request.truncate) {
    ;({ truncated, refused: truncationsRefused } = truncateWindow(ledger, logger))
    if (truncated > 0) {
      sync.show(true)
      fits = (await countInput(agent, model, request.threshold)).fits
      if (fits === true) return { reduced: true, report: report(0, undefined), raise: undefined }
    }
  }
  // Nothing but a truncation the count does not rule out: the agent may retry with that.
  const truncatedOnly = truncated > 0 && (!overflow || fits !== false)
  // A fold that would take only the previous summary, right after one that did: the window keeps its
  // length, and Strands would retry the model forever (each round a summarizer call and a refused model
  // call). The overflow is raised instead.
  if (overflow && sync.summaryOnlyFolds > 0 && foldsOnlySummary(planRatioFold(ledger, settings))) {
    warnSummaryOnly(logger, ledger.sessionId, agent.messages.length, settings)
    return { reduced: truncatedOnly, report: report(0, 'summary-only'), raise: undefined }
  }
  const { summarizer, thrown } = watched(modelSummarizer(settings.model ?? model))
  let result: SummarizeResult
  try {
    result = await ledger.summarize(summarizer, {
      summaryRatio: settings.summaryRatio,
      preserveRecentMessages: settings.preserveRecentMessages,
      systemPrompt: settings.systemPrompt,
    })
  } catch (failure) {
    // The summarizer's own error, as Strands raises it; any other failure (the ledger's) as it is.
    const original =
      isContextLedgerError(failure, 'SUMMARIZER_FAILED') && 'error' in thrown ? thrown.error : failure
    return failed(ledger, request, original, report(0, 'summarizer-failed'), truncatedOnly)
  }
  if (result.summarized === 0) {
    const reason = result.reason ?? 'no-valid-cut'
    // Strands' adjustSplitPointForToolPairs throws here: it is a failure of the summarization.
    if (reason === 'no-valid-cut')
      return failed(ledger, request, new Error(NO_SPLIT_POINT), report(0, reason), truncatedOnly)
    logger.warn(
      logLine(
        {
          session_id: ledger.sessionId,
          window_messages: result.windowMessages,
          preserve_recent: settings.preserveRecentMessages ?? 10,
          reason,
        },
        reason === 'all-protected'
          ? 'all messages in the summarize range are protected, unable to reduce'
          : 'insufficient messages for summarization',
      ),
    )
    return { reduced: truncatedOnly, report: report(0, reason), raise: undefined }
  }
  if (overflow && result.summary?.messageCount === 0) sync.summaryOnlyFolds++
  sync.show(false)
  return { reduced: true, report: report(result.summarized, undefined), raise: undefined }
}

/**
 * The fold Strands' ratio rule asks for with these settings (`summaryRatio` clamped to 0.1–0.8, as
 * Strands does).
 *
 * @param settings - how summaries are made
 * @returns the fold request
 */
export function ratioFold(settings: ResolvedSummarize): FoldRequest {
  return ratioFoldRequest(settings.summaryRatio, settings.preserveRecentMessages)
}

function planRatioFold(ledger: LedgerManager, settings: ResolvedSummarize): PlannedFold {
  return ledger.store.planFold(ledger.sessionId, ledger.limits, ratioFold(settings))
}

/** What planning a fold came to: the plan, or why nothing can be folded. */
export type PlannedFold = { readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason }

/**
 * Whether a planned fold would take nothing but the summary the window shows: the window would keep its
 * length. Right after such a fold on an overflow, another one is refused (on either backend): Strands'
 * `SummarizingConversationManager` would fold and ask the model again forever.
 *
 * @param planned - the fold planned now
 * @returns true when it folds no message
 */
export function foldsOnlySummary(planned: PlannedFold): boolean {
  return 'plan' in planned && planned.plan.folded.length === 0
}

/**
 * Logs the refusal of a second summary-only fold on an overflow (see {@link foldsOnlySummary}); the
 * overflow is then raised by Strands, as `reduce` returns false.
 *
 * @param logger - where to report it
 * @param sessionId - the session
 * @param windowMessages - messages the agent shows
 * @param settings - how summaries are made
 */
export function warnSummaryOnly(
  logger: Logger,
  sessionId: string,
  windowMessages: number,
  settings: ResolvedSummarize,
): void {
  logger.warn(
    logLine(
      {
        session_id: sessionId,
        window_messages: windowMessages,
        summary_ratio: settings.summaryRatio ?? 0.3,
        preserve_recent: settings.preserveRecentMessages ?? 10,
      },
      'context window overflow not recovered: the only part of the window a summary may take is the summary itself, which was just folded; the model error is raised (a larger summaryRatio or a smaller preserveRecentMessages lets a fold take messages)',
    ),
  )
}

/**
 * A summarization that failed: on an overflow, the error to raise (normalized to an `Error`, a thrown
 * string becoming its message, with the overflow as `cause`, as Strands 1.19 does); proactively, logged.
 */
function failed(
  ledger: LedgerManager,
  request: SummaryReductionRequest,
  original: unknown,
  report: ReductionReport,
  truncatedOnly: boolean,
): SummaryReduction {
  const where = { session_id: ledger.sessionId, error: String(original) }
  if (request.error === undefined) {
    request.logger.warn(logLine(where, 'proactive summarization failed, continuing'))
    return { reduced: truncatedOnly, report, raise: undefined }
  }
  request.logger.error(
    logLine(where, 'summarization failed; raised with the context window overflow as its cause'),
  )
  const raise = original instanceof Error ? original : new Error(String(original))
  raise.cause = request.error
  return { reduced: false, report, raise }
}

/**
 * After an invocation, with `windowSize` or `tokenBudget`: folds what the window holds beyond them into
 * the summary instead of dropping it. It never fails the invocation: a failure is logged and the window
 * stays as it is — over its limits, nothing lost — until the next invocation folds it.
 *
 * @param ledger - the core manager of the session
 * @param settings - how summaries are made
 * @param model - the agent's model, which writes the summary unless `summarize.model` is set
 * @param logger - where a failure is reported
 */
export async function foldExcess(
  ledger: Pick<LedgerManager, 'sessionId' | 'summarizeExcess'>,
  settings: ResolvedSummarize,
  model: Model,
  logger: Logger,
): Promise<void> {
  try {
    await ledger.summarizeExcess(modelSummarizer(settings.model ?? model), {
      systemPrompt: settings.systemPrompt,
    })
  } catch (failure) {
    const code = isContextLedgerError(failure) ? failure.code : undefined
    const cause = isContextLedgerError(failure, 'SUMMARIZER_FAILED') ? failure.cause : failure
    logger.warn(
      logLine(
        { session_id: ledger.sessionId, code, error: String(cause) },
        'folding the window over its limits into a summary failed after the invocation; the window stays as it is (nothing is lost) and the next invocation tries again',
      ),
    )
  }
}
