/**
 * The recall tools, framework-neutral (docs/design.md, "Recall"): `search_history` finds messages of the
 * whole conversation — evicted ones are first-class — and `read_history` gives a range of them back as
 * text a model can use. Each is a name, a description, a zod input schema and a handler working through
 * a core manager — the SQLite {@link PersistentConversationManager} (the handler answers at once) or the
 * PostgreSQL manager of `context-ledger/postgres` (the handler answers with a Promise). The Strands adapter
 * wraps the same handlers (`context-ledger/strands` exports `searchHistoryTool` and `readHistoryTool`).
 * Each handler is written once, as a generator over either backend's reads (src/tools/recall-flow.ts).
 *
 * The handlers never throw for what a model can get wrong (an inverted range, a seq the conversation does
 * not have, a negative limit, a query FTS5 refuses, malformed input): they answer with an error result the
 * model can read and correct.
 */
import { z } from 'zod'
import { isContextLedgerError } from '../errors.js'
import type { PersistentConversationManager } from '../manager/persistent-conversation-manager.js'
import { estimateTokens } from '../messages/tokens.js'
import type { LedgerEntry } from '../store/store-types.js'
import type { SearchHit } from '../store/search-types.js'
import { ask, run, type AsyncRecallManager, type Flow, type RecallSource } from './recall-flow.js'
import { checkRecallToolOptions, SEARCH_HISTORY_MAX_LIMIT, type RecallToolOptions } from './recall-options.js'
import { fieldCount, hasBlock, render } from './recall-render.js'
import { parseInput } from './recall-input.js'

export type { AsyncRecallManager } from './recall-flow.js'
export {
  READ_HISTORY_MAX_TOKENS,
  READ_HISTORY_MAX_TOKENS_LIMIT,
  type RecallToolOptions,
} from './recall-options.js'

/** `search_history`, as the model calls it. */
export const SEARCH_HISTORY_TOOL_NAME = 'search_history'

/** `read_history`, as the model calls it. */
export const READ_HISTORY_TOOL_NAME = 'read_history'

/** What the model reads about `search_history`. */
export const SEARCH_HISTORY_TOOL_DESCRIPTION =
  'Search the whole conversation so far, including messages that no longer fit in your context window. ' +
  'Give a few keywords (or a "quoted phrase"). Results list first the messages that are no longer in your ' +
  'context (best match first), then matches you can still see; each has its `seq` and a snippet. Then ' +
  'call read_history with a seq range to read those messages in full.'

/** What the model reads about `read_history`. */
export const READ_HISTORY_TOOL_DESCRIPTION =
  'Read messages of this conversation by seq (positions from 0, as search_history reports them), ' +
  'including messages that left your context window. `fromSeq` and `toSeq` are inclusive. Long ranges ' +
  'are cut at a size limit: the answer then says which seq to read from next.'

/** `search_history`'s input: `{ query: string, limit?: 1–50 (default 8) }`. */
export const searchHistoryInputSchema = z.object({
  query: z.string().min(1).max(4096).describe('Keywords or a "quoted phrase"'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_HISTORY_MAX_LIMIT)
    .optional()
    .describe('Most results (default 8)'),
})

/** `read_history`'s input: `{ fromSeq: int ≥ 0, toSeq: int ≥ 0 }` (inclusive). */
export const readHistoryInputSchema = z.object({
  fromSeq: z.number().int().min(0).describe('First seq to read'),
  toSeq: z.number().int().min(0).describe('Last seq to read (inclusive)'),
})

/** What a recall handler answers: the text the model reads, and whether the call succeeded. */
export interface RecallToolResult {
  /** `'success'`, or `'error'` for input the model should correct. */
  readonly status: 'success' | 'error'
  /** The text for the model. */
  readonly text: string
  /** For `search_history`: the hits. */
  readonly hits?: readonly SearchHit[]
  /** For `read_history`: the seqs shown, inclusive, or undefined when none were. */
  readonly shown?: { readonly fromSeq: number; readonly toSeq: number }
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim()
}

function describeHit(h: SearchHit): string {
  if (h.kind === 'summary')
    return `- summary #${h.summaryId ?? '?'} (stands for earlier messages from seq ${h.seq}${h.inWindow ? ', in your context' : ''}${h.ended === undefined ? '' : `; ${h.ended}, no longer current`}): ${oneLine(h.snippet)}`
  const where = h.inWindow
    ? 'in your context'
    : h.summaryId === undefined
      ? 'no longer in your context'
      : `no longer in your context; summarized in summary #${h.summaryId}`
  return `- seq ${h.seq} (${h.role}, ${where}${h.pinned ? ', pinned' : ''}): ${oneLine(h.snippet)}`
}

/**
 * Runs `search_history` against a core manager: the session's archive, ranked (bm25 on SQLite, `ts_rank`
 * on PostgreSQL), the recall tools' own calls and results left out; words are matched with OR and ranked
 * (a model's query is often a sentence).
 *
 * @param manager - the core manager of the session: SQLite's (the result at once) or PostgreSQL's (a Promise)
 * @param input - the tool input as the model sent it (validated here)
 * @param options - the default limit
 * @returns the hits as text; an error result for bad input or a query the index refuses
 */
export function handleSearchHistory(
  manager: PersistentConversationManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult
export function handleSearchHistory(
  manager: AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): Promise<RecallToolResult>
export function handleSearchHistory(
  manager: PersistentConversationManager | AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult | Promise<RecallToolResult>
export function handleSearchHistory(
  manager: PersistentConversationManager | AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult | Promise<RecallToolResult> {
  return run(manager, (source) => searchFlow(source, input, options))
}

function* searchFlow(source: RecallSource, input: unknown, options: unknown): Flow<RecallToolResult> {
  // Checked inside the flow: a bad option throws from the call on SQLite and rejects on PostgreSQL.
  const { defaultLimit } = checkRecallToolOptions(options)
  const parsed = parseInput(
    SEARCH_HISTORY_TOOL_NAME,
    searchHistoryInputSchema,
    input,
    '{ query: non-empty string, limit?: integer 1-50 }',
  )
  if (!parsed.ok) return parsed.result
  const { query, limit } = parsed.data
  const want = limit ?? defaultLimit
  let hits: SearchHit[]
  try {
    // What left the window first: the model sees the rest already (its own question among them).
    hits = yield* ask(source.search(query, want, false))
    if (hits.length < want) hits = [...hits, ...(yield* ask(source.search(query, want - hits.length, true)))]
  } catch (error) {
    if (isContextLedgerError(error, 'INVALID_QUERY'))
      return { status: 'error', text: `${error.message}. Use a few plain keywords.` }
    throw error
  }
  if (hits.length === 0)
    return { status: 'success', text: `No message of this conversation matches "${oneLine(query)}".`, hits }
  const head = `${hits.length} result${hits.length === 1 ? '' : 's'} for "${oneLine(query)}", best first, those no longer in your context before those still in it (read one with read_history { fromSeq, toSeq }):`
  return { status: 'success', text: [head, ...hits.map(describeHit)].join('\n'), hits }
}

/** How many messages `read_history` reads at a time: it stops reading once its cap is reached. */
export const READ_PAGE_ROWS = 32

/**
 * Runs `read_history` against a core manager: the messages `fromSeq`…`toSeq` (widened so a tool call and
 * its result are never split) as text — role labels, text, tool names with inputs and results — up to a
 * token cap, after which the answer says which seq to read from next. A message folded into a summary
 * names it.
 *
 * @param manager - the core manager of the session: SQLite's (the result at once) or PostgreSQL's (a Promise)
 * @param input - the tool input as the model sent it (validated here)
 * @param options - the token cap
 * @returns the text; an error result for bad input, an inverted range or a seq the session does not have
 */
export function handleReadHistory(
  manager: PersistentConversationManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult
export function handleReadHistory(
  manager: AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): Promise<RecallToolResult>
export function handleReadHistory(
  manager: PersistentConversationManager | AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult | Promise<RecallToolResult>
export function handleReadHistory(
  manager: PersistentConversationManager | AsyncRecallManager,
  input: unknown,
  options?: RecallToolOptions,
): RecallToolResult | Promise<RecallToolResult> {
  return run(manager, (source) => readFlow(source, input, options))
}

/** The entries of `fromSeq`…`toSeq`, read a page at a time, handed out in units no tool pair is split across. */
class UnitReader {
  private readonly buffer: LedgerEntry[] = []
  private next: number
  private exhausted = false

  constructor(
    private readonly source: RecallSource,
    fromSeq: number,
    private readonly toSeq: number,
  ) {
    this.next = fromSeq
  }

  /** Reads a page when the buffer is empty; it stays empty at the end of the range. */
  private *fill(): Flow<void> {
    while (this.buffer.length === 0 && !this.exhausted) {
      if (this.next > this.toSeq) {
        this.exhausted = true
        return
      }
      const page = yield* ask(
        this.source.history(this.next, Math.min(READ_PAGE_ROWS, this.toSeq - this.next + 1)),
      )
      if (page.length === 0) this.exhausted = true
      for (const e of page) {
        if (e.seq > this.toSeq) {
          this.exhausted = true
          break
        }
        this.buffer.push(e)
        this.next = e.seq + 1
      }
    }
  }

  /** The next unit: an entry, and the tool results that answer the calls before them; undefined at the end. */
  *unit(): Flow<LedgerEntry[] | undefined> {
    yield* this.fill()
    const first = this.buffer.shift()
    if (first === undefined) return undefined
    const unit = [first]
    for (;;) {
      yield* this.fill()
      const e = this.buffer[0]
      const prev = unit[unit.length - 1]
      if (e === undefined || !hasBlock(e.message, 'toolResult') || !hasBlock(prev?.message, 'toolUse')) break
      unit.push(e)
      this.buffer.shift()
    }
    return unit
  }
}

function* readFlow(source: RecallSource, input: unknown, options: unknown): Flow<RecallToolResult> {
  const cap = checkRecallToolOptions(options).maxTokens
  const parsed = parseInput(
    READ_HISTORY_TOOL_NAME,
    readHistoryInputSchema,
    input,
    '{ fromSeq: integer >= 0, toSeq: integer >= fromSeq }',
  )
  if (!parsed.ok) return parsed.result
  let { fromSeq, toSeq } = parsed.data
  if (toSeq < fromSeq)
    return {
      status: 'error',
      text: `Invalid range: toSeq ${toSeq} is before fromSeq ${fromSeq}. Give fromSeq <= toSeq.`,
    }
  const count = yield* ask(source.messageCount())
  if (fromSeq >= count)
    return {
      status: 'error',
      text:
        count === 0
          ? 'This conversation has no messages yet.'
          : `Unknown seq ${fromSeq}: this conversation has seqs 0 to ${count - 1}.`,
    }
  toSeq = Math.min(toSeq, count - 1)
  // Widen to whole tool pairs: a result's call before it, a call's result after it.
  function* look(seq: number): Flow<LedgerEntry | undefined> {
    return (yield* ask(source.history(seq, 1)))[0]
  }
  while (fromSeq > 0 && hasBlock((yield* look(fromSeq))?.message, 'toolResult')) fromSeq--
  while (toSeq + 1 < count && hasBlock((yield* look(toSeq))?.message, 'toolUse')) toSeq++
  const toolNames = new Map<string, string>()
  const parts: string[] = []
  let used = 0
  let last: number | undefined
  const reader = new UnitReader(source, fromSeq, toSeq)
  const tokensOf = (text: string): number => estimateTokens({ role: 'user', content: [{ text }] })
  for (;;) {
    const unit = yield* reader.unit()
    if (unit === undefined) break
    // A message out of the window that a fold took names its summary (from the eviction log).
    const notes = new Map<number, string>()
    for (const e of unit)
      if (!e.inWindow) {
        const folded = (yield* ask(source.evictionOf(e.seq)))?.summaryId
        if (folded !== undefined) notes.set(e.seq, `summarized in summary #${folded}`)
      }
    const renderUnit = (limit: number): string =>
      unit.map((e) => render(e, notes.get(e.seq), toolNames, limit)).join('\n\n')
    let text = renderUnit(Infinity)
    let tokens = tokensOf(text)
    if (parts.length > 0 && used + tokens > cap) break
    if (tokens > cap) {
      // One unit alone over the cap: each of its long fields is cut (saying how much was left out), so
      // every message of the unit — the result a model asked for too — is still shown, in part.
      const fields = unit.reduce((n, e) => n + fieldCount(e.message), 0)
      const limit = Math.max(200, Math.floor((text.length * cap) / tokens / fields))
      text = `${renderUnit(limit)}\n[… cut: ${unit.length === 1 ? 'this message is' : 'these messages are'} longer than one read allows (${tokens} tokens); the first part of each long field is shown]`
      tokens = Math.min(tokensOf(text), cap)
    }
    parts.push(text)
    used += tokens
    last = unit.at(-1)?.seq
  }
  if (last === undefined) return { status: 'success', text: 'Nothing to show.' }
  if (last < toSeq)
    parts.push(
      `[… stopped at the size limit: seqs ${last + 1} to ${toSeq} not shown. Call read_history with fromSeq ${last + 1} (or a narrower range) for the rest.]`,
    )
  return { status: 'success', text: parts.join('\n\n'), shown: { fromSeq, toSeq: last } }
}

/**
 * The framework-neutral `search_history` tool: register `name`, `description` and `inputSchema` (zod;
 * JSON Schema via `z.toJSONSchema(inputSchema, { io: 'input' })`) and call `handler(manager, input)`.
 *
 * @example
 * ```ts
 * const result = searchHistoryToolDefinition.handler(manager, { query: 'replication lag' })
 * reply({ toolUseId: call.id, status: result.status, content: [{ text: result.text }] })
 * ```
 */
export const searchHistoryToolDefinition = Object.freeze({
  name: SEARCH_HISTORY_TOOL_NAME,
  description: SEARCH_HISTORY_TOOL_DESCRIPTION,
  inputSchema: searchHistoryInputSchema,
  handler: handleSearchHistory,
})

/**
 * The framework-neutral `read_history` tool: register it like {@link searchHistoryToolDefinition}.
 *
 * @example
 * ```ts
 * const result = readHistoryToolDefinition.handler(manager, { fromSeq: 3, toSeq: 6 })
 * ```
 */
export const readHistoryToolDefinition = Object.freeze({
  name: READ_HISTORY_TOOL_NAME,
  description: READ_HISTORY_TOOL_DESCRIPTION,
  inputSchema: readHistoryInputSchema,
  handler: handleReadHistory,
})
