/**
 * `context-ledger search <file> <text> [--session s] [--scan] [--fts5]`: messages that match `<text>`,
 * evicted ones included.
 *
 * How it searches is a {@link SearchMethod}; the output says which one answered (`method` in `--json`):
 * - `index` (the default): the ledger's full-text index (`store.search()`, docs/design.md, "Recall"):
 *   the words of `<text>` (and its `"quoted phrases"`) must all occur, matched by the index's tokenizer —
 *   letter case ignored in every script and Latin letters' diacritics (`ecole` finds `École`), English stemming
 *   (`replicate` finds `replication`) — best first by bm25. `--fts5` takes `<text>` as FTS5 query
 *   syntax (prefixes, OR, NOT, NEAR). Its cost is that of the matching words, not of the archive.
 * - `scan` (`--scan`): every message body is read (a LIKE prefilter on the stored JSON, then the
 *   message's text is matched), finding `<text>` as a substring ignoring letter case — for what words
 *   cannot express (`"sql":`, part of a word) — in session and seq order; a pass over the archive.
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../../db/typed-statement.js'
import { ContextLedgerError } from '../../errors.js'
import type { ContextStore } from '../../store/context-store.js'
import { formatNamed } from '../../formats/index.js'
import type { StoredMessageData } from '../../messages/types.js'
import { parseBody } from '../../store/entries.js'
import { CliError, unknownSession } from '../errors.js'
import { count, iso, plainLine, time, visible } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { CLI_READS, type SearchRow } from '../statements.js'
import { findIgnoringCase, likePattern } from '../text-match.js'
import { elide, printTable } from '../table.js'

/** One message found. */
export interface SearchMatch {
  sessionId: string
  seq: number
  trackingId: string
  role: string
  inWindow: boolean
  createdAt: string | null
  /** The text around the first match. */
  snippet: string
}

/** A way to search a ledger. */
export interface SearchMethod {
  /** Its name, printed and in `--json`'s `method`. */
  readonly name: string
  /** What it costs, for the note under the results. */
  readonly note: string
  /** Whether this file supports it. */
  available(db: Database.Database): boolean
  /** Up to `limit` matches (the order is the method's). */
  search(ctx: SearchContext, query: string, limit: number): SearchMatch[]
}

/** What a search method is given. */
export interface SearchContext {
  /** The open store. */
  readonly store: ContextStore
  /** Its connection. */
  readonly db: Database.Database
  /** One session (its key, id, and whether it is a branch), or every session. */
  readonly session: { readonly pk: number; readonly id: string; readonly branch: boolean } | undefined
  /** Take the text as FTS5 query syntax (the index method only). */
  readonly fts5: boolean
}

export { likePattern } from '../text-match.js'

function snippet(text: string, at: number, length: number): string {
  const from = Math.max(0, at - 40)
  const to = Math.min(text.length, at + length + 80)
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`
}

/**
 * A body in its reading form: a message of another format than Strands is read through its format's
 * `display` (its text, calls and results), as `history` and `window` read it.
 *
 * @param format - the session's format name (null: Strands)
 * @param body - the stored body
 */
function readingForm(format: string | null | undefined, body: string): StoredMessageData {
  return formatNamed(format).display(parseBody(body))
}

/** A pass over every body: the stored JSON prefiltered by LIKE, the text matched ignoring letter case. */
export const SCAN: SearchMethod = {
  name: 'scan',
  note: 'substring scan of the whole archive, in session and seq order',
  available: () => true,
  search({ store, db, session }, query, limit) {
    const pattern = likePattern(query)
    const rows: Iterable<SearchRow> =
      session === undefined
        ? prepareSpec(db, CLI_READS.searchAll).iterate(pattern)
        : session.branch
          ? branchRows(store, session.id)
          : prepareSpec(db, CLI_READS.searchSession).iterate(session.pk, pattern)
    const out: SearchMatch[] = []
    for (const r of rows) {
      const message = readingForm(r.format, r.body)
      const text = plainLine(message)
      const found = findIgnoringCase(text, query)
      if (found === undefined) continue
      out.push({
        sessionId: r.session_id,
        seq: r.seq,
        trackingId: r.uid,
        role: message.role,
        inWindow: r.in_window === 1,
        createdAt: iso(r.created_at),
        snippet: snippet(text, found.at, found.length),
      })
      if (out.length >= limit) break
    }
    return out
  },
}

/** Messages read a page at a time by `history()`. */
const PAGE = 500

/**
 * A branch's conversation as the scan reads it — its ancestors' rows up to each fork point and its own,
 * with their place in the branch's window — through `history()`, a page at a time (the branch's rows
 * are its owners', so no one statement of the session's key reads them).
 */
function* branchRows(store: ContextStore, sessionId: string): Generator<SearchRow> {
  const format = store.session(sessionId)?.format ?? null
  for (let from = 0; ; from += PAGE) {
    const page = store.history(sessionId, { fromSeq: from, limit: PAGE })
    for (const e of page)
      yield {
        session_id: sessionId,
        seq: e.seq,
        uid: e.trackingId,
        body: JSON.stringify(e.message),
        created_at: e.createdAt.getTime(),
        in_window: e.inWindow ? 1 : 0,
        format,
      }
    if (page.length < PAGE) return
  }
}

/**
 * The snippet of an index hit: around the first occurrence of the query (or of one of its words) in the
 * message's text, ignoring letter case as the scan does; else the index's own, its `**` marks removed.
 */
function hitSnippet(text: string, query: string, indexSnippet: string): string {
  const words = [query, ...query.split(/[\s"]+/u).filter((w) => w.length > 0)]
  for (const w of words) {
    const found = findIgnoringCase(text, w)
    if (found !== undefined) return snippet(text, found.at, found.length)
  }
  return plainLine({ content: [{ text: indexSnippet.replaceAll('**', '') }] })
}

/** The full-text index (`store.search()`), best first. */
export const INDEX: SearchMethod = {
  name: 'index',
  note: 'full-text index: every word, letter case and diacritics ignored, best first',
  available: (db) => prepareSpec(db, CLI_READS.hasSearchIndex).get() !== undefined,
  search({ store, db, session, fts5 }, query, limit) {
    let hits
    try {
      hits = store.search(query, {
        ...(session === undefined ? {} : { sessionId: session.id }),
        limit: Math.min(limit, 1000),
        summaries: false,
        excludeTools: [],
        syntax: fts5 ? 'fts5' : 'plain',
      })
    } catch (error) {
      if (error instanceof ContextLedgerError && error.code === 'INVALID_QUERY')
        throw new CliError(error.message, 'INVALID_QUERY')
      throw error
    }
    const body = prepareSpec(db, CLI_READS.bodyBySeq)
    // Each session's format, read once: the reading form of its bodies.
    const formats = new Map<string, string | undefined>()
    const formatOf = (id: string): string | undefined => {
      if (!formats.has(id)) formats.set(id, store.session(id)?.format)
      return formats.get(id)
    }
    return hits.map((h) => {
      // A branch's message may be an ancestor's row: read through the store, which knows its owner.
      const stored =
        session?.branch === true
          ? JSON.stringify(store.message(h.sessionId, { seq: h.seq }).message)
          : body.get(prepareSpec(db, CLI_READS.sessionPk).get(h.sessionId) ?? 0, h.seq)
      const message = stored === undefined ? { content: [] } : readingForm(formatOf(h.sessionId), stored)
      return {
        sessionId: h.sessionId,
        seq: h.seq,
        trackingId: h.trackingId,
        role: h.role,
        inWindow: h.inWindow,
        createdAt: h.createdAt.toISOString(),
        snippet: hitSnippet(plainLine(message), query, h.snippet),
      }
    })
  },
}

/** The methods, best first: the first available one answers (unless `--scan`). */
export const METHODS: readonly SearchMethod[] = [INDEX, SCAN]

/**
 * Runs `search`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param query - the text to find
 * @param options - `json`, `session`, `limit`
 * @returns the exit code
 */
export async function search(
  ctx: CommandContext,
  file: string,
  query: string,
  options: { json?: boolean; session?: string; limit: number; scan?: boolean; fts5?: boolean },
): Promise<number> {
  const store = await openStore(file)
  try {
    const db = store.connection()
    let session: SearchContext['session']
    if (options.session !== undefined) {
      const pk = prepareSpec(db, CLI_READS.sessionPk).get(options.session)
      if (pk === undefined) throw unknownSession(file, options.session)
      session = { pk, id: options.session, branch: store.session(options.session)?.parentId != null }
    }
    if (options.scan === true && options.fts5 === true)
      throw new CliError('--scan and --fts5 do not go together: FTS5 syntax needs the index', 'USAGE')
    const method = options.scan === true ? SCAN : (METHODS.find((m) => m.available(db)) ?? SCAN)
    const ctx2: SearchContext = { store, db, session, fts5: options.fts5 === true }
    const matches = query === '' ? [] : method.search(ctx2, query, options.limit + 1)
    const truncated = matches.length > options.limit
    const shown = matches.slice(0, options.limit)
    const out = ctx.out
    if (options.json === true) {
      out.json({
        file,
        query,
        sessionId: options.session ?? null,
        method: method.name,
        truncated,
        matches: shown,
      })
      return 0
    }
    if (shown.length === 0)
      out.line(`no message ${method === SCAN ? 'contains' : 'matches'} "${visible(query)}"`)
    else
      printTable(
        out,
        [
          { head: 'session' },
          { head: 'seq', align: 'right' },
          { head: 'role' },
          { head: 'place' },
          { head: 'appended (UTC)' },
          { head: 'text' },
        ],
        shown.map((m) => [
          elide(m.sessionId, 40),
          String(m.seq),
          m.role,
          m.inWindow ? 'window' : 'evicted',
          time(m.createdAt === null ? undefined : new Date(m.createdAt)),
          m.snippet,
        ]),
      )
    out.line(
      out.color.dim(
        `${count(shown.length)} match${shown.length === 1 ? '' : 'es'}${truncated ? ` (first ${options.limit}; --limit for more)` : ''} — ${method.note}`,
      ),
    )
    return 0
  } finally {
    store.close()
  }
}
