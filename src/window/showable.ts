/**
 * Which messages a window can ever show (docs/design.md, "Validity before protection"): a window opens
 * with a plain user message, so nothing before the session's first one — an assistant greeting, a call
 * and its result before any question — can be in a window, now or later. The seqs before that message
 * are fixed once it is appended (the archive is append-only), and every message from it on has a plain
 * user message at or before it to lead the window. So "can this message be shown" is decided once, at
 * the pin, and a pin the window could never keep is refused instead of silently doing nothing.
 */
import type { LedgerView } from './ledger-view.js'
import { toolComponent } from './protection.js'

/**
 * Why no window can ever show `seq` with the messages tied to it by tool calls, or undefined when one can.
 *
 * @param view - the session
 * @param seq - the message
 * @returns a sentence for an error message, or undefined
 */
export function unshowableReason(view: LedgerView, seq: number): string | undefined {
  const opener = view.firstPlainUser(0)
  const earliest = toolComponent(view, seq)[0] ?? seq
  if (opener !== undefined && earliest >= opener) return undefined
  const what = earliest === seq ? `seq ${seq}` : `seq ${seq} (tied by tool calls to seq ${earliest})`
  return opener === undefined
    ? `${what} has no plain user message at or before it, and a window must open with one: no window can show it`
    : `${what} comes before the session's first plain user message (seq ${opener}), and a window must open with one: no window can show it`
}
