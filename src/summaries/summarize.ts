/**
 * Making a summary: plan the fold in one read snapshot, call the summarizer outside any transaction (it
 * is caller code, usually a model call), then write the result in one short transaction that first checks
 * the window is still the one planned. When another writer changed it meanwhile, the fold is planned
 * again: a plan with the same input is written with the summary already made; otherwise the summarizer
 * is asked once more, and after that the caller gets `SUMMARY_CONFLICT`. A summarizer that throws or
 * returns no text changes nothing.
 */
import { formatNamed, type MessageFormatName } from '../formats/index.js'
import { ContextLedgerError, isContextLedgerError } from '../errors.js'
import type { TokenCounter } from '../messages/tokens.js'
import type { MessageData, StoredMessageData } from '../messages/types.js'
import type { MessageLimits } from '../messages/schema.js'
import type {
  FoldPlan,
  MadeSummary,
  RegenerationPlan,
  SessionSummary,
  SummaryRecord,
} from '../store/context-store.js'
import type { FoldRequest, NothingEvictedReason } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'
import { DEFAULT_SUMMARIZATION_PROMPT, promptHash, SUMMARY_REQUEST } from './prompt.js'
import { describeThrown, summaryFromOutput, type SummarizerOutput } from './summary-message.js'

/** What a summarizer is told besides the messages. */
export interface SummaryRequest {
  /** The system prompt to summarize with. */
  readonly systemPrompt: string
  /** The session. */
  readonly sessionId: string
  /** The summary being folded in (or regenerated), if any: it is among the messages too. */
  readonly previous: SummaryRecord | undefined
}

/**
 * Makes a summary: given the messages to fold (as the window shows them, the previous summary among
 * them), then a user message asking for a summary ({@link SUMMARY_REQUEST}), and the system prompt, it
 * returns the summary's text — a string, `{ text, model? }`, or a model reply whose text blocks are kept.
 * Usually one model call. It runs outside any transaction; when it throws, nothing changes.
 */
export type Summarizer = (
  messages: readonly MessageData[],
  request: SummaryRequest,
) => SummarizerOutput | Promise<SummarizerOutput>

/** What a summarization did. */
export interface SummarizeResult {
  /**
   * Window messages folded into the new summary: messages of the archive, and the previous summary when
   * there was one. 0 when nothing could be folded (`reason` says why).
   */
  readonly summarized: number
  /** The new summary, the one the window now shows; undefined when nothing was folded. */
  readonly summary: SummaryRecord | undefined
  /** Why nothing was folded. */
  readonly reason: NothingEvictedReason | undefined
  /** Messages in the window afterwards, the summary included. */
  readonly windowMessages: number
  /** Tokens in the window afterwards, the summary included. */
  readonly windowTokens: number
}

/** A value, or a Promise of it: the SQLite store answers at once, the PostgreSQL store asynchronously. */
type Maybe<T> = T | Promise<T>

/** What summarizing needs of a store: both the SQLite and the PostgreSQL store have it. */
export interface SummaryStore {
  /** The validation limits the summary message must meet. */
  readonly limits: Readonly<MessageLimits>
  /** Plans a fold. */
  planFold(
    sessionId: string,
    limits: WindowLimits,
    request: FoldRequest,
  ): Maybe<{ readonly plan: FoldPlan } | { readonly nothing: NothingEvictedReason }>
  /** Writes a planned fold. */
  writeFold(plan: FoldPlan, made: MadeSummary): Maybe<SummaryRecord>
  /** Plans a regeneration. */
  planRegeneration(sessionId: string, id: number, from: 'raw' | 'previous'): Maybe<RegenerationPlan>
  /** Writes a regeneration. */
  writeRegeneration(plan: RegenerationPlan, made: MadeSummary): Maybe<SummaryRecord>
  /** A session's sizes. */
  session(sessionId: string): Maybe<SessionSummary | undefined>
  /** One summary. */
  summary(sessionId: string, id: number): Maybe<SummaryRecord>
}

/** Who is summarizing: the session, its limits and token counter. */
export interface SummaryContext {
  /** The store. */
  readonly store: SummaryStore
  /** The session. */
  readonly sessionId: string
  /** The manager's limits: their protected ranges never fold. */
  readonly limits: WindowLimits
  /** The session's token counter: the summary is counted with it. */
  readonly tokenCounter: TokenCounter
}

/** How a summary is made: the prompt and the identity recorded with it. */
export interface SummaryStyle {
  /** The system prompt; {@link DEFAULT_SUMMARIZATION_PROMPT} when undefined. */
  readonly systemPrompt: string | undefined
  /** Who writes the summary, recorded with it when the summarizer's output does not say. */
  readonly model: string | undefined
}

/** How many times the summarizer may be asked for one summary (a first call, and one after a conflict). */
const MAX_CALLS = 2

/** How many times a fold is planned for one summary before giving up on a window that keeps changing. */
const MAX_PLANS = 4

/**
 * Calls the summarizer and builds the summary from its answer.
 *
 * @param context - the session
 * @param summarizer - the caller's summarizer
 * @param input - the messages to summarize
 * @param previous - the summary folded in or regenerated
 * @param style - prompt and identity
 * @returns the summary, ready to write
 * @throws ContextLedgerError `SUMMARIZER_FAILED` (the summarizer's error is its `cause`)
 */
export async function makeSummary(
  context: SummaryContext,
  summarizer: Summarizer,
  input: readonly StoredMessageData[],
  previous: SummaryRecord | undefined,
  style: SummaryStyle,
  format: MessageFormatName = 'strands',
): Promise<MadeSummary> {
  const systemPrompt = style.systemPrompt ?? DEFAULT_SUMMARIZATION_PROMPT
  // The request closes the conversation, as in Strands; it has no trackingId: it is never stored.
  const request: MessageData =
    format === 'strands'
      ? { role: 'user', content: [{ text: SUMMARY_REQUEST }] }
      : formatNamed(format).prompt(SUMMARY_REQUEST)
  const messages: MessageData[] = [...input, request]
  let output: unknown
  try {
    output = await summarizer(messages, { systemPrompt, sessionId: context.sessionId, previous })
  } catch (error) {
    throw new ContextLedgerError(
      'SUMMARIZER_FAILED',
      `The summarizer for session "${context.sessionId}" threw: ${describeThrown(error)}; nothing was written`,
      { sessionId: context.sessionId, cause: error },
    )
  }
  return summaryFromOutput(output, {
    sessionId: context.sessionId,
    model: style.model,
    promptHash: promptHash(systemPrompt),
    limits: context.store.limits,
    tokenCounter: context.tokenCounter,
    format,
  })
}

/** Whether two plans give the summarizer the same input (so one summary serves both). */
function sameInput(a: FoldPlan, b: FoldPlan): boolean {
  return (
    a.previous === b.previous &&
    a.folded.length === b.folded.length &&
    a.folded.every((s, i) => s === b.folded[i]) &&
    JSON.stringify(a.input) === JSON.stringify(b.input)
  )
}

async function windowAfter(
  context: SummaryContext,
): Promise<{ windowMessages: number; windowTokens: number }> {
  const session = await context.store.session(context.sessionId)
  return { windowMessages: session?.windowMessages ?? 0, windowTokens: session?.windowTokens ?? 0 }
}

/**
 * Folds the part of the window `request` names into a new summary (see the module comment).
 *
 * @param context - the session
 * @param summarizer - the caller's summarizer
 * @param request - by ratio, or the excess over the limits
 * @param style - prompt and identity
 * @returns what was folded
 * @throws ContextLedgerError `SUMMARIZER_FAILED`, `SUMMARY_CONFLICT`, and what the store throws
 */
export async function foldIntoSummary(
  context: SummaryContext,
  summarizer: Summarizer,
  request: FoldRequest,
  style: SummaryStyle,
): Promise<SummarizeResult> {
  const { store, sessionId, limits } = context
  let made: { plan: FoldPlan; summary: MadeSummary } | undefined
  let calls = 0
  for (let plans = 1; ; plans++) {
    const planned = await store.planFold(sessionId, limits, request)
    if ('nothing' in planned)
      return { summarized: 0, summary: undefined, reason: planned.nothing, ...(await windowAfter(context)) }
    const plan = planned.plan
    if (made === undefined || !sameInput(made.plan, plan)) {
      if (calls >= MAX_CALLS) throw conflictGivenUp(sessionId, calls)
      calls++
      const previous = plan.previous === undefined ? undefined : await store.summary(sessionId, plan.previous)
      made = {
        plan,
        summary: await makeSummary(context, summarizer, plan.input, previous, style, plan.format),
      }
      // Folding what is over the limits into a summary the budget cannot hold gains nothing: the next
      // cut would take that summary out again, and with it all it stands for.
      const budget = limits.tokenBudget
      if (request.kind === 'excess' && budget !== undefined && made.summary.tokens > budget)
        throw new ContextLedgerError(
          'SUMMARIZER_FAILED',
          `The summarizer for session "${sessionId}" returned a summary of ${made.summary.tokens} tokens, more than the tokenBudget of ${budget}; nothing was written`,
          { sessionId },
        )
    }
    try {
      const summary = await store.writeFold(plan, made.summary)
      return {
        summarized: plan.input.length,
        summary,
        reason: undefined,
        ...(await windowAfter(context)),
      }
    } catch (error) {
      if (!isContextLedgerError(error, 'SUMMARY_CONFLICT') || plans >= MAX_PLANS) throw error
      made = { plan, summary: made.summary }
    }
  }
}

function conflictGivenUp(sessionId: string, calls: number): ContextLedgerError<'SUMMARY_CONFLICT'> {
  return new ContextLedgerError(
    'SUMMARY_CONFLICT',
    `Session "${sessionId}" kept changing while its summary was made (${calls} summaries made, each for a window that had changed before it could be written); nothing was written`,
    { sessionId },
  )
}

/**
 * Folds what the window holds beyond its limits into the summary, round after round (at most three) while
 * the new summary itself leaves the window over them: what the sliding window would drop is summarized
 * instead.
 *
 * @param context - the session
 * @param summarizer - the caller's summarizer
 * @param style - prompt and identity
 * @returns what was folded in all; `summary` is the last one made
 */
export async function foldExcess(
  context: SummaryContext,
  summarizer: Summarizer,
  style: SummaryStyle,
): Promise<SummarizeResult> {
  const { limits, store, sessionId } = context
  const low = limits.lowWaterMark ?? 1
  let summarized = 0
  let last: SummarizeResult | undefined
  for (let round = 0; round < 3; round++) {
    const session = await store.session(sessionId)
    const reserve =
      session?.summaryId === undefined ? 0 : (await store.summary(sessionId, session.summaryId)).tokens
    let result: SummarizeResult
    try {
      result = await foldIntoSummary(
        context,
        summarizer,
        {
          kind: 'excess',
          windowSize: Math.max(1, Math.floor(limits.windowSize * low)),
          tokenBudget:
            limits.tokenBudget === undefined ? undefined : Math.max(1, Math.floor(limits.tokenBudget * low)),
          reserveTokens: reserve,
        },
        style,
      )
    } catch (error) {
      // A later round that fails leaves the earlier rounds' summaries written: they are reported.
      if (last === undefined || !isContextLedgerError(error, 'SUMMARIZER_FAILED')) throw error
      break
    }
    // A round that folds nothing ends the rounds; the result stays the last fold's (no `reason`).
    if (result.summary === undefined) {
      last ??= result
      break
    }
    summarized += result.summarized
    last = { ...result, summarized }
    const fits =
      result.windowMessages <= limits.windowSize &&
      (limits.tokenBudget === undefined || result.windowTokens <= limits.tokenBudget)
    if (fits) break
  }
  return (
    last ?? { summarized: 0, summary: undefined, reason: 'within-limits', ...(await windowAfter(context)) }
  )
}

/**
 * Regenerates the summary the window shows from the archive (see `PersistentConversationManager.resummarize`).
 *
 * @param context - the session
 * @param id - the summary
 * @param summarizer - the caller's summarizer
 * @param from - `'raw'` (every message it stands for) or `'previous'`
 * @param style - prompt and identity
 * @returns the new summary
 * @throws ContextLedgerError `SUMMARY_NOT_FOUND`, `SUMMARY_NOT_CURRENT`, `SUMMARIZER_FAILED`, `SUMMARY_CONFLICT`
 */
export async function regenerateSummary(
  context: SummaryContext,
  id: number,
  summarizer: Summarizer,
  from: 'raw' | 'previous',
  style: SummaryStyle,
): Promise<SummaryRecord> {
  const { store, sessionId } = context
  let made: MadeSummary | undefined
  let input: string | undefined
  for (let plans = 1; ; plans++) {
    const plan = await store.planRegeneration(sessionId, id, from)
    const key = JSON.stringify(plan.input)
    if (made === undefined || key !== input) {
      made = await makeSummary(context, summarizer, plan.input, plan.summary, style, plan.format)
      input = key
    }
    try {
      return await store.writeRegeneration(plan, made)
    } catch (error) {
      if (!isContextLedgerError(error, 'SUMMARY_CONFLICT') || plans >= MAX_CALLS) throw error
    }
  }
}
