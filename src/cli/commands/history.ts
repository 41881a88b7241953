/**
 * `context-ledger history <file> <session> [--from N] [--limit N]`: the archive, evicted messages
 * included, in seq order, with each message's place in the window.
 */
import type { StoredMessageData } from '../../messages/types.js'
import { formatNamed } from '../../formats/index.js'
import type { ContextStore, LedgerEntry } from '../../store/context-store.js'
import { unknownSession } from '../errors.js'
import { count, iso, messageLine, messageText, shellWord, time } from '../format.js'
import { jsonFor, writeWaiting } from '../io.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { printTable } from '../table.js'

/** Entries read and written at a time by `--json`. */
const PAGE = 500

/** One entry in `--json`. */
function entryJson(e: LedgerEntry): Record<string, unknown> {
  return {
    seq: e.seq,
    trackingId: e.trackingId,
    role: e.message.role,
    inWindow: e.inWindow,
    pinned: e.pinned,
    tokens: e.tokens,
    createdAt: iso(e.createdAt),
    repeatOf: e.repeatOf ?? null,
    late: e.late,
    message: e.message,
    windowMessage: e.windowMessage ?? null,
  }
}

/**
 * `--json`, written a page of entries at a time as the reader takes them (so `--limit 1000000` holds
 * one page, not the whole archive), in one read transaction: the same text `JSON.stringify(document,
 * null, 2)` gives.
 */
async function streamJson(
  ctx: CommandContext,
  store: ContextStore,
  file: string,
  sessionId: string,
  options: { from: number; limit: number },
): Promise<void> {
  const db = store.connection()
  const sink = ctx.io.stdout
  db.exec('BEGIN')
  try {
    const session = store.session(sessionId)
    if (session === undefined) throw unknownSession(file, sessionId)
    const head = JSON.stringify(
      {
        file,
        sessionId,
        messageCount: session.messageCount,
        boundary: session.boundary,
        fromSeq: options.from,
        limit: options.limit,
        entries: [],
      },
      null,
      2,
    )
    // Everything up to the entries' opening bracket.
    await writeWaiting(sink, jsonFor(sink, head.slice(0, -'[]\n}'.length)))
    let written = 0
    for (let from = options.from; written < options.limit;) {
      const asked = Math.min(PAGE, options.limit - written)
      const page = store.history(sessionId, { fromSeq: from, limit: asked })
      let chunk = ''
      for (const e of page) {
        chunk += `${written === 0 ? '[\n' : ',\n'}${JSON.stringify(entryJson(e), null, 2).replace(/^/gm, '    ')}`
        written++
      }
      await writeWaiting(sink, jsonFor(sink, chunk))
      const last = page.at(-1)
      if (last === undefined || page.length < asked) break
      from = last.seq + 1
    }
    await writeWaiting(sink, written === 0 ? '[]\n}\n' : '\n  ]\n}\n')
  } finally {
    db.exec('COMMIT')
  }
}

function marks(e: LedgerEntry): string {
  const m: string[] = []
  if (e.pinned) m.push('pinned')
  if (e.windowMessage !== undefined) m.push('shown edited')
  if (e.late) m.push('late result')
  if (e.repeatOf !== undefined) m.push(`repeats ${e.repeatOf}`)
  return m.join(', ')
}

/**
 * Runs `history`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - the session
 * @param options - `json`, `from`, `limit`, `full`
 * @returns the exit code
 */
export async function history(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  options: { json?: boolean; from: number; limit: number; full?: boolean },
): Promise<number> {
  const store = await openStore(file)
  try {
    if (options.json === true) {
      await streamJson(ctx, store, file, sessionId, options)
      return 0
    }
    const session = store.session(sessionId)
    if (session === undefined) throw unknownSession(file, sessionId)
    const out = ctx.out
    if (options.limit === 0) {
      out.line(
        `${out.color.bold(sessionId)}: ${count(session.messageCount)} messages (boundary ${count(session.boundary)}); --limit 0 shows none of them`,
      )
      return 0
    }
    const entries = store.history(sessionId, { fromSeq: options.from, limit: options.limit })
    // A message of another format than Strands is read in its reading form (`display`).
    const format = formatNamed(session.format)
    const read = (m: StoredMessageData): StoredMessageData => format.display(m)
    const c = out.color
    const last = entries.at(-1)
    out.line(
      `${c.bold(sessionId)}: seqs ${count(options.from)}–${last === undefined ? '…' : count(last.seq)} of ${count(session.messageCount)} (boundary ${count(session.boundary)})`,
    )
    if (entries.length === 0) {
      out.line(`no messages from seq ${options.from} on`)
      return 0
    }
    const place = (e: LedgerEntry): string =>
      e.seq >= session.boundary ? 'window' : e.inWindow ? 'kept' : 'evicted'
    const dimEvicted = (p: string): string => (p === 'evicted' ? c.dim(p) : p)
    if (options.full === true) {
      for (const e of entries) {
        out.line(
          c.bold(`seq ${e.seq} ${format.facts(e.message).speaker}`) +
            `  ${dimEvicted(place(e))}  ${count(e.tokens)} tokens  ${time(e.createdAt)}  ${marks(e)}`,
        )
        out.line(messageText(read(e.message)))
        out.line()
      }
      return 0
    }
    printTable(
      out,
      [
        { head: 'seq', align: 'right' },
        { head: 'role' },
        { head: 'place', style: dimEvicted },
        { head: 'tokens', align: 'right' },
        { head: 'appended (UTC)' },
        { head: 'notes' },
        { head: 'text' },
      ],
      entries.map((e) => [
        String(e.seq),
        format.facts(e.message).speaker,
        place(e),
        count(e.tokens),
        time(e.createdAt),
        marks(e),
        messageLine(read(e.message)),
      ]),
    )
    if (last !== undefined && last.seq + 1 < session.messageCount)
      out.line(
        c.dim(
          `more: context-ledger history ${shellWord(file)} ${shellWord(sessionId)} --from ${last.seq + 1}`,
        ),
      )
    return 0
  } finally {
    store.close()
  }
}
