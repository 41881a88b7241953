/**
 * The options the core manager's calls take besides its constructor's — `append`, `reduce`, `summarize`,
 * `summarizeExcess`, `resummarize` — with their checks: shared by the SQLite manager and the PostgreSQL
 * one (`src/backends/postgres/manager.ts`), which must not load the SQLite store to check them.
 */
import { z } from 'zod'
import { describeValue } from '../messages/limits.js'
import type { TokenCounter } from '../messages/tokens.js'
import type { MessageFormatName } from '../formats/types.js'
import type { AppendOptions } from '../store/append-format.js'
import type { SessionMetadataFold } from '../store/session-metadata.js'
import { checkKeys, invalidOption } from '../store/check-args.js'
import type { Summarizer } from '../summaries/summarize.js'
import type { FoldRequest } from '../window/plan-types.js'

/** Options of `PersistentConversationManager.append` (and the PostgreSQL manager's). */
export interface ManagerAppendOptions {
  /**
   * Compare-and-append: append only when the session holds exactly this many messages (0 when it does
   * not exist yet); otherwise `APPEND_CONFLICT` and nothing is written. See the store's `append`.
   */
  readonly expectCount?: number | undefined
  /**
   * Folds what the append wrote into the session's metadata, in the append's own transaction. See the
   * store's `AppendOptions.sessionMetadata`.
   */
  readonly sessionMetadata?: SessionMetadataFold | undefined
}

/**
 * The store's append options for a manager's append: the manager's token counter and format, and the
 * caller's `expectCount` and `sessionMetadata` (checked by the store).
 *
 * @param tokenCounter - the manager's token counter
 * @param format - the manager's format, if named
 * @param options - the caller's options (unchecked: an object with only `expectCount`, `sessionMetadata`)
 * @returns the store's options
 * @throws ContextLedgerError `INVALID_OPTIONS` for an unknown option
 */
export function managerAppendOptions(
  tokenCounter: TokenCounter,
  format: MessageFormatName | undefined,
  options: unknown,
): AppendOptions {
  const { expectCount, sessionMetadata } = checkKeys(options ?? {}, 'options', [
    'expectCount',
    'sessionMetadata',
  ])
  // Whatever they are, the store checks them (INVALID_OPTIONS at `expectCount`, `sessionMetadata`).
  return {
    tokenCounter,
    format,
    ...(expectCount === undefined ? {} : { expectCount: expectCount as number }),
    ...(sessionMetadata === undefined ? {} : { sessionMetadata: sessionMetadata as SessionMetadataFold }),
  }
}

/** Options of `PersistentConversationManager.reduce`. */
export interface ReduceOptions {
  /** True when the model refused the input as too long. Reduction always evicts something if it can. */
  overflow?: boolean | undefined
}

const text = z.string().min(1).max(1_000_000)
const modelName = z
  .string()
  .min(1)
  .max(256)
  .refine((v) => v.isWellFormed(), 'contains a lone UTF-16 surrogate')
/** The options of `summarize` (also the PostgreSQL manager's). */
export const summarizeOptions = z.strictObject({
  summaryRatio: z.number().optional(),
  preserveRecentMessages: z.number().int().min(0).optional(),
  before: z.number().int().min(0).optional(),
  systemPrompt: text.optional(),
  model: modelName.optional(),
})
/**
 * The fold Strands' ratio rule asks for: `summaryRatio` clamped to 0.1–0.8 (0.3 when absent), as Strands
 * does, and the newest `preserveRecentMessages` (10 when absent) kept. One rule for both managers and the
 * Strands adapter.
 *
 * @param summaryRatio - the share of the window to fold
 * @param preserveRecentMessages - how many of the newest messages never fold
 * @returns the fold request
 */
export function ratioFoldRequest(
  summaryRatio: number | undefined,
  preserveRecentMessages: number | undefined,
): FoldRequest {
  return {
    kind: 'ratio',
    ratio: Math.max(0.1, Math.min(0.8, summaryRatio ?? 0.3)),
    preserve: preserveRecentMessages ?? 10,
  }
}

/**
 * The fold `summarize` asks for: every window message before `before` when given, else the ratio rule
 * ({@link ratioFoldRequest}).
 *
 * @param options - `summarize`'s checked options
 * @returns the fold request
 */
export function summarizeFoldRequest(options: {
  summaryRatio?: number | undefined
  preserveRecentMessages?: number | undefined
  before?: number | undefined
}): FoldRequest {
  return options.before === undefined
    ? ratioFoldRequest(options.summaryRatio, options.preserveRecentMessages)
    : { kind: 'before', seq: options.before }
}

/** The options of `summarizeExcess`. */
export const excessOptions = z.strictObject({
  systemPrompt: text.optional(),
  model: modelName.optional(),
})
/** The options of `resummarize`. */
export const resummarizeOptions = z.strictObject({
  systemPrompt: text.optional(),
  model: modelName.optional(),
  from: z.enum(['raw', 'previous']).optional(),
})

/** Options of `PersistentConversationManager.summarize`: Strands' `SummarizingConversationManager`'s. */
export interface SummarizeOptions {
  /** Share of the window to fold, clamped to [0.1, 0.8] as in Strands. Default 0.3. */
  summaryRatio?: number | undefined
  /** Never fold the newest N messages of the window. Default 10. */
  preserveRecentMessages?: number | undefined
  /**
   * Fold every window message before this seq instead (the ratio and preserve options are then ignored);
   * when a summary cannot be followed by that message, the split moves forward as the ratio's does.
   */
  before?: number | undefined
  /** The summarizer's system prompt. Default `DEFAULT_SUMMARIZATION_PROMPT`. */
  systemPrompt?: string | undefined
  /** Who writes the summary (a model id), recorded with it unless the summarizer's output names one. */
  model?: string | undefined
}

/** Options of `PersistentConversationManager.summarizeExcess`. */
export interface SummarizeExcessOptions {
  /** The summarizer's system prompt. Default `DEFAULT_SUMMARIZATION_PROMPT`. */
  systemPrompt?: string | undefined
  /** Who writes the summary, recorded with it unless the summarizer's output names one. */
  model?: string | undefined
}

/** Options of `PersistentConversationManager.resummarize`. */
export interface ResummarizeOptions extends SummarizeExcessOptions {
  /**
   * What the new summary is made from: `'raw'` (default), every message of the archive the summary stands
   * for, down its chain; `'previous'`, the summary it replaced and the messages it folded itself — the
   * input it was first made from, with the archived originals.
   */
  from?: 'raw' | 'previous' | undefined
}

/**
 * Refuses a summarizer that is not a function.
 *
 * @param summarizer - what the caller passed
 */
export function checkSummarizer(summarizer: unknown): asserts summarizer is Summarizer {
  if (typeof summarizer !== 'function')
    throw invalidOption('summarizer', `expected a function, got ${describeValue(summarizer)}`)
}
