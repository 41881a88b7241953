/**
 * Messages under the ids the adapter gives (`context-ledger:seq:<n>[:<i>]`, `context-ledger:summary…`,
 * `context-ledger:clear:<uuid>`; see window.ts) met again in a list given to the ledger — a graph state
 * cut to the window, window messages handed back to a chat history. Such a message is the ledger's own
 * and is never stored again, but only when its id names what the session showed under it, with that
 * content: a caller's message under a made-up ledger id, or a window message edited before it was sent
 * back, would otherwise be dropped without a word (a prompt lost, and the model called without it), so
 * it is refused.
 */
import { expandRepair } from '../../formats/langchain/index.js'
import type { LedgerPort } from '../port.js'
import { contentKeyOf, invalidMessage, LEDGER_ID_PREFIX, type LangChainBody } from './messages.js'
import { CLEAR_ID_PREFIX } from './window.js'

const SEQ_ID = /^context-ledger:seq:(\d+)(?::(\d+))?$/
const SUMMARY_ID = /^context-ledger:summary(?::\d+)?$/

/** Whether the window showed `body` for row `seq` (stored or rewritten, a repair's result `index`). */
async function shownAs(port: LedgerPort, seq: number, index: number, body: LangChainBody): Promise<string> {
  const [row] = await port.history(seq, 1)
  if (row?.seq !== seq) return `the session has no message ${seq}`
  const key = contentKeyOf(body)
  const forms = row.windowMessage === undefined ? [row.message] : [row.message, row.windowMessage]
  const shown = forms.some((form) => {
    const part = expandRepair(form as never)[index] as unknown as LangChainBody | undefined
    return part !== undefined && contentKeyOf(part) === key
  })
  // An erased row (a redaction, retention's pruning) cannot be compared with a copy made before.
  if (shown || (await port.edits()).some((e) => e.seq === seq && e.kind === 'redact')) return ''
  return `message ${seq} was shown with other content`
}

/**
 * Checks a message under an id starting `context-ledger:` (see the module comment).
 *
 * @param port - the session
 * @param body - the message, as a body
 * @param path - where it is (`messages[3]`)
 * @throws ContextLedgerError `INVALID_MESSAGE` at `path.data.id` when the id names nothing the session
 *   showed, or something it showed with other content
 */
export async function checkLedgerMessage(port: LedgerPort, body: LangChainBody, path: string): Promise<void> {
  const id = String(body.data.id)
  let problem = ''
  if (id.startsWith(CLEAR_ID_PREFIX)) {
    if ((await port.byTrackingId(id)) === undefined) problem = 'the session has no such clear marker'
  } else if (SUMMARY_ID.test(id)) {
    const [first] = await port.windowEntries()
    if (first === undefined || first.seq !== undefined) problem = 'the session shows no summary'
  } else {
    const match = SEQ_ID.exec(id)
    problem =
      match === null
        ? 'not an id the ledger gives'
        : await shownAs(port, Number(match[1]), Number(match[2] ?? 0), body)
  }
  if (problem === '') return
  throw invalidMessage(
    `${path}.data.id`,
    `${JSON.stringify(id)}: ${problem}. Ids starting ${JSON.stringify(LEDGER_ID_PREFIX)} name the messages the ledger made or rewrote, which it never stores again: give a message of your own an id of its own`,
  )
}
