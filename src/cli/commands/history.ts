/**
 * `context-ledger history <file> <session> [--from N] [--limit N]`: the archive, evicted messages
 * included, in seq order, with each message's place in the window.
 */
import type { LedgerEntry } from '../../store/context-store.js'
import { unknownSession } from '../errors.js'
import { count, iso, messageLine, messageText, shellWord, time } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { printTable } from '../table.js'

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
    const session = store.session(sessionId)
    if (session === undefined) throw unknownSession(file, sessionId)
    const entries = store.history(sessionId, { fromSeq: options.from, limit: options.limit })
    const out = ctx.out
    if (options.json === true) {
      out.json({
        file,
        sessionId,
        messageCount: session.messageCount,
        boundary: session.boundary,
        fromSeq: options.from,
        limit: options.limit,
        entries: entries.map((e) => ({
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
        })),
      })
      return 0
    }
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
          c.bold(`seq ${e.seq} ${e.message.role}`) +
            `  ${dimEvicted(place(e))}  ${count(e.tokens)} tokens  ${time(e.createdAt)}  ${marks(e)}`,
        )
        out.line(messageText(e.message))
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
        e.message.role,
        place(e),
        count(e.tokens),
        time(e.createdAt),
        marks(e),
        messageLine(e.message),
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
