/**
 * Protection, checked from the archive (docs/design.md, "Window rules", 3): every protected message is in
 * the window — and so is every pinned one. A pin is a promise the window keeps; the store refuses a pin
 * no window can show (a message before the session's first plain user message), so a pinned message out
 * of the window is a broken promise even where the protected set, which leaves such messages out by the
 * rule "validity before protection", does not name it (a file pinned by an older version, an import).
 */
import { isPlainUser, type MessageShape } from './archive-facts.js'
import type { Fail } from './window-rules.js'

/**
 * Reports protected and pinned messages missing from the window.
 *
 * @param fail - where problems go
 * @param shapes - the session's messages in seq order
 * @param protectedSeqs - the protected seqs, ascending
 * @param pinned - the pinned seqs
 * @param windowSet - the seqs the window shows
 */
export function checkProtectedShown(
  fail: Fail,
  shapes: readonly MessageShape[],
  protectedSeqs: readonly number[],
  pinned: ReadonlySet<number>,
  windowSet: ReadonlySet<number>,
): void {
  const missing = protectedSeqs.filter((s) => !windowSet.has(s))
  if (missing.length > 0)
    fail('protected in window', `protected seqs ${missing.join(',')} are not in the window`, {
      seq: missing[0],
    })
  const shown = new Set(protectedSeqs)
  const unshown = [...pinned].filter((s) => !windowSet.has(s) && !shown.has(s)).sort((a, b) => a - b)
  if (unshown.length === 0) return
  const opener = shapes.findIndex(isPlainUser)
  const early = unshown.filter((s) => opener < 0 || s < opener)
  const why =
    early.length > 0
      ? `; ${early.join(',')} come${early.length === 1 ? 's' : ''} before the session's first plain user message, where no window can show a message (unpin ${early.length === 1 ? 'it' : 'them'})`
      : ''
  fail('pinned in window', `pinned seqs ${unshown.join(',')} are not in the window${why}`, {
    seq: unshown[0],
  })
}
