/**
 * The options of `ContextStore.search()` (docs/api.md, "search"), checked once for either backend: the
 * filters as the statements bind them, paging, the syntax and how words match.
 */
import type { SearchParams } from '../db/recall-statements.js'
import { describeValue } from '../messages/limits.js'
import { checkKeys, checkSessionId, invalidOption } from './check-args.js'

/** `syntax: 'tsquery'` on SQLite: the PostgreSQL store's raw syntax, named as such. */
function refuseTsquery(): never {
  throw invalidOption(
    'options.syntax',
    "'tsquery' is the PostgreSQL store's raw syntax; on SQLite raw queries use syntax: 'fts5' (FTS5 query syntax)",
  )
}

/** The tools whose calls and results a search leaves out by default: the recall tools themselves. */
export const RECALL_TOOL_NAMES: readonly string[] = Object.freeze(['search_history', 'read_history'])

/** The most hits one search returns. */
export const MAX_SEARCH_LIMIT = 1000

const OPTION_KEYS = [
  'sessionId',
  'role',
  'pinned',
  'inWindow',
  'toolName',
  'excludeTools',
  'since',
  'until',
  'limit',
  'offset',
  'syntax',
  'match',
  'summaries',
  'endedSummaries',
] as const

function instant(value: unknown, field: string): number | null {
  if (value === undefined) return null
  const ms = value instanceof Date ? value.getTime() : value
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw invalidOption(field, 'expected a Date or ms since the epoch')
  return ms
}

function flag(value: unknown, field: string): number | null {
  if (value === undefined) return null
  if (typeof value !== 'boolean') throw invalidOption(field, `expected true or false, got ${typeof value}`)
  return value ? 1 : 0
}

function count(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalidOption(field, `expected an integer from ${min} to ${max}, got ${describeValue(value)}`)
  return value
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw invalidOption(field, `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}`)
  return value as T
}

/** Checked search options. */
export interface Checked {
  readonly sessionId: string | undefined
  readonly params: Omit<SearchParams, 'q' | 'session' | 'limit'>
  readonly limit: number
  readonly offset: number
  readonly syntax: 'plain' | 'fts5'
  readonly match: 'all' | 'any'
  readonly summaries: boolean
}

/**
 * Checks search options.
 *
 * @param options - what the caller passed
 * @returns them, as the statements bind them
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the bad field
 */
export function checkSearchOptions(options: unknown): Checked {
  const o = options === undefined ? {} : checkKeys(options, 'options', OPTION_KEYS)
  if (o.sessionId !== undefined) checkSessionId(o.sessionId, 'options.sessionId')
  const role = o.role === undefined ? null : oneOf(o.role, 'options.role', ['user', 'assistant'], 'user')
  if (o.toolName !== undefined && (typeof o.toolName !== 'string' || o.toolName === ''))
    throw invalidOption('options.toolName', 'expected a non-empty string')
  let skip: readonly string[] = RECALL_TOOL_NAMES
  if (o.excludeTools !== undefined) {
    if (!Array.isArray(o.excludeTools) || !o.excludeTools.every((t) => typeof t === 'string'))
      throw invalidOption('options.excludeTools', 'expected an array of tool names')
    skip = o.excludeTools
  }
  if (o.summaries !== undefined && typeof o.summaries !== 'boolean')
    throw invalidOption('options.summaries', 'expected true or false')
  return {
    sessionId: o.sessionId,
    params: {
      role,
      pinned: flag(o.pinned, 'options.pinned'),
      in_window: flag(o.inWindow, 'options.inWindow'),
      since: instant(o.since, 'options.since'),
      until: instant(o.until, 'options.until'),
      tool: o.toolName ?? null,
      skip: skip.length === 0 ? null : JSON.stringify(skip),
      ended:
        o.endedSummaries === undefined || flag(o.endedSummaries, 'options.endedSummaries') === 1 ? null : 0,
    },
    limit: count(o.limit, 'options.limit', 20, 1, MAX_SEARCH_LIMIT),
    offset: count(o.offset, 'options.offset', 0, 0, Number.MAX_SAFE_INTEGER),
    syntax:
      o.syntax === 'tsquery'
        ? refuseTsquery()
        : oneOf(o.syntax, 'options.syntax', ['plain', 'fts5'], 'plain'),
    match: oneOf(o.match, 'options.match', ['all', 'any'], 'all'),
    summaries: o.summaries ?? true,
  }
}
