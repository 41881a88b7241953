/**
 * `context-ledger pins <file> [--session s] [--actor a]`: pinned messages with who pinned them, when and
 * why, and whether they are in the window.
 */
import { formatNamed } from '../../formats/index.js'
import { count, iso, messageLine, time } from '../format.js'
import { unknownSession } from '../errors.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { printTable } from '../table.js'

/**
 * Runs `pins`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param options - `json`, `session`, `actor`
 * @returns the exit code
 */
export async function pins(
  ctx: CommandContext,
  file: string,
  options: { json?: boolean; session?: string; actor?: string },
): Promise<number> {
  const store = await openStore(file)
  try {
    if (options.session !== undefined && store.session(options.session) === undefined)
      throw unknownSession(file, options.session)
    const list = store
      .pinnedMessages(options.session === undefined ? {} : { sessionId: options.session })
      .filter((p) => options.actor === undefined || p.actor === options.actor)
    const out = ctx.out
    if (options.json === true) {
      out.json({
        file,
        pins: list.map((p) => ({
          sessionId: p.sessionId,
          seq: p.seq,
          trackingId: p.trackingId,
          actor: p.actor,
          reason: p.reason ?? null,
          pinnedAt: iso(p.pinnedAt),
          inWindow: p.inWindow,
          message: p.message,
        })),
      })
      return 0
    }
    if (list.length === 0) {
      out.line('no pinned messages')
      return 0
    }
    // Each session's format, for the reading form of its messages.
    const formats = new Map(store.sessions().map((s) => [s.id, s.format]))
    printTable(
      out,
      [
        { head: 'session' },
        { head: 'seq', align: 'right' },
        { head: 'actor' },
        { head: 'pinned (UTC)' },
        { head: 'in window' },
        { head: 'reason' },
        { head: 'text' },
      ],
      list.map((p) => [
        p.sessionId,
        String(p.seq),
        p.actor,
        time(p.pinnedAt),
        p.inWindow ? 'yes' : 'no',
        p.reason ?? '',
        messageLine(formatNamed(formats.get(p.sessionId)).display(p.message)),
      ]),
    )
    out.line(out.color.dim(`${count(list.length)} pinned`))
    return 0
  } finally {
    store.close()
  }
}
