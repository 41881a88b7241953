/**
 * `context-ledger search <file> <text> [--session s]`: messages whose text contains `<text>` (letter case
 * ignored), evicted ones included.
 *
 * How it searches is a {@link SearchMethod}. Today there is one, `scan`: every message body is read (a
 * LIKE prefilter on the stored JSON, then the message's text is matched), so it costs a pass over the
 * archive — fine for occasional lookups. A full-text index belongs to the ledger's schema (the "recall"
 * work); once a file has one, a method that queries it goes first in {@link METHODS}, and the output
 * says which method answered (`method` in `--json`).
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../../db/typed-statement.js'
import { parseBody } from '../../store/entries.js'
import { unknownSession } from '../errors.js'
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
  /** Up to `limit` matches, in session and seq order. */
  search(db: Database.Database, query: string, sessionPk: number | undefined, limit: number): SearchMatch[]
}

export { likePattern } from '../text-match.js'

function snippet(text: string, at: number, length: number): string {
  const from = Math.max(0, at - 40)
  const to = Math.min(text.length, at + length + 80)
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`
}

/** A pass over every body: the stored JSON prefiltered by LIKE, the text matched ignoring letter case. */
export const SCAN: SearchMethod = {
  name: 'scan',
  note: 'full scan of the archive (no full-text index in this ledger)',
  available: () => true,
  search(db, query, sessionPk, limit) {
    const pattern = likePattern(query)
    const rows: Iterable<SearchRow> =
      sessionPk === undefined
        ? prepareSpec(db, CLI_READS.searchAll).iterate(pattern)
        : prepareSpec(db, CLI_READS.searchSession).iterate(sessionPk, pattern)
    const out: SearchMatch[] = []
    for (const r of rows) {
      const message = parseBody(r.body)
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

/** The methods, best first: the first available one answers. */
export const METHODS: readonly SearchMethod[] = [SCAN]

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
  options: { json?: boolean; session?: string; limit: number },
): Promise<number> {
  const store = await openStore(file)
  try {
    const db = store.connection()
    let pk: number | undefined
    if (options.session !== undefined) {
      pk = prepareSpec(db, CLI_READS.sessionPk).get(options.session)
      if (pk === undefined) throw unknownSession(file, options.session)
    }
    const method = METHODS.find((m) => m.available(db)) ?? SCAN
    const matches = query === '' ? [] : method.search(db, query, pk, options.limit + 1)
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
    if (shown.length === 0) out.line(`no message contains "${visible(query)}"`)
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
