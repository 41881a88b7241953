/**
 * `context-ledger window <file> <session> [--explain]`: the messages the model sees, in order; with
 * `--explain`, why each one is there (the store's `explainWindow()`), the boundary and the limits.
 */
import type { StoredMessageData } from '../../messages/types.js'
import { formatNamed } from '../../formats/index.js'
import type { WindowReason } from '../../store/context-store.js'
import { unknownSession } from '../errors.js'
import { count, iso, messageLine, messageText, time } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { printTable } from '../table.js'

/**
 * A reason as a person reads it.
 *
 * @param r - the reason
 * @returns e.g. `pinned by agent (task definition)`
 */
export function describeReason(r: WindowReason): string {
  switch (r.kind) {
    case 'tail':
      return 'tail'
    case 'pinned': {
      const who = r.actor === undefined ? 'pinned' : `pinned by ${r.actor}`
      return r.reason === undefined ? who : `${who}: ${r.reason}`
    }
    case 'first':
      return `first ${r.n}`
    case 'last':
      return `last ${r.n}`
    case 'tool-partner':
      return `tool partner of ${r.of.join(', ')}`
    case 'lead':
      return `lead for ${r.for}`
    case 'newest-turn':
      return 'newest turn'
    case 'anchor':
      return 'anchor'
    case 'summary':
      return `summary #${r.id} of ${count(r.messageCount)} messages`
    case 'released':
      return 'released (leaves when room is needed)'
  }
}

/** A reason in `--json`: dates as ISO strings. */
function reasonJson(r: WindowReason): Record<string, unknown> {
  return r.kind === 'pinned' ? { ...r, at: iso(r.at) } : { ...r }
}

/**
 * Runs `window`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - the session
 * @param options - `json`, `explain`, `full`
 * @returns the exit code
 */
export async function window(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  options: { json?: boolean; explain?: boolean; full?: boolean },
): Promise<number> {
  const store = await openStore(file)
  try {
    const w = store.explainWindow(sessionId)
    if (w === undefined) throw unknownSession(file, sessionId)
    // A message of another format than Strands is read in its reading form (`display`).
    const format = formatNamed(store.session(sessionId)?.format)
    const read = (m: StoredMessageData): StoredMessageData => format.display(m)
    const out = ctx.out
    const explain = options.explain === true
    if (options.json === true) {
      out.json({
        file,
        sessionId: w.sessionId,
        messageCount: w.messageCount,
        boundary: w.boundary,
        limits: w.limits ?? null,
        windowMessages: w.windowMessages,
        windowTokens: w.windowTokens,
        summary:
          w.summary === undefined
            ? null
            : {
                id: w.summary.id,
                messageCount: w.summary.messageCount,
                seqs: w.summary.seqs,
                replaces: w.summary.replaces ?? null,
                tokens: w.summary.tokens,
                createdAt: iso(w.summary.createdAt),
              },
        messages: w.messages.map((m) => ({
          index: m.index,
          seq: m.seq ?? null,
          trackingId: m.trackingId,
          role: m.role,
          part: m.part,
          tokens: m.tokens,
          pinned: m.pinned,
          ...(explain ? { reasons: m.reasons.map(reasonJson) } : {}),
          message: m.message,
        })),
      })
      return 0
    }
    const c = out.color
    out.line(
      `${c.bold(w.sessionId)}: ${count(w.windowMessages)} messages in the window (${count(w.windowTokens)} tokens) of ${count(w.messageCount)} in the archive`,
    )
    if (explain) {
      const l = w.limits
      out.line(
        l === undefined
          ? 'limits: none recorded (the window was never applied); only pins protect'
          : `limits (as last applied): windowSize ${l.windowSize}, tokenBudget ${l.tokenBudget === undefined ? 'none' : count(l.tokenBudget)}, first ${l.first}, last ${l.last}`,
      )
      out.line(
        `boundary ${count(w.boundary)}: seqs from ${count(w.boundary)} on are the tail; before it only kept rows stay (${count(w.boundary - w.messages.filter((m) => m.part === 'kept').length)} evicted)`,
      )
      if (w.summary !== undefined)
        out.line(
          `summary #${w.summary.id} (${time(w.summary.createdAt)}) stands for ${count(w.summary.messageCount)} folded messages${w.summary.replaces === undefined ? '' : `, and summary #${w.summary.replaces} before it`}`,
        )
    }
    out.line()
    if (options.full === true) {
      for (const m of w.messages) {
        const why = explain ? `  ${c.dim(m.reasons.map(describeReason).join('; '))}` : ''
        out.line(
          c.bold(
            `[${m.index}] ${m.seq === undefined ? 'summary' : `seq ${m.seq}`} ${format.facts(m.message).speaker}`,
          ) + `  ${count(m.tokens)} tokens${why}`,
        )
        out.line(messageText(read(m.message)))
        out.line()
      }
      return 0
    }
    printTable(
      out,
      [
        { head: '#', align: 'right' },
        { head: 'seq', align: 'right' },
        { head: 'role' },
        { head: 'tokens', align: 'right' },
        ...(explain ? [{ head: 'why' }] : []),
        { head: 'text' },
      ],
      w.messages.map((m) => [
        String(m.index),
        m.seq === undefined ? '—' : String(m.seq),
        format.facts(m.message).speaker,
        count(m.tokens),
        ...(explain ? [m.reasons.map(describeReason).join('; ')] : []),
        messageLine(read(m.message)),
      ]),
    )
    return 0
  } finally {
    store.close()
  }
}
