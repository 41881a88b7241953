/**
 * Editing a conversation's first message. The store rewinds to a message that stays (`toSeq ≥ 0`): no
 * rewind leaves a session empty. So an edit of seq 0 rewinds to it — what followed leaves as an abandoned
 * branch, which goes on showing the original (before a row's window form changes, the store copies the
 * old form into the branches below that see the row) — and then shows the new version in its place
 * (`editMessage`, in the edit log with actor `'user'`): the chat, the screen and the model see the edited
 * message; the row keeps the original, searchable, and `alternatives()` lists both.
 */
import type { BranchInfo } from '../../store/context-store.js'
import type { LedgerPort } from '../port.js'
import type { BranchPort } from './branch-port.js'

/**
 * Replaces the first message of the conversation with `message`.
 *
 * @param port - the session
 * @param branches - its tree
 * @param message - the new version, checked
 * @param reason - why (the rewind's and the edit's reason)
 * @returns the branch holding what followed the first message, and how many messages left
 */
export async function replaceFirst(
  port: LedgerPort,
  branches: BranchPort,
  message: unknown,
  reason: string,
): Promise<{ abandoned: BranchInfo | undefined; left: number }> {
  const rewound =
    (await port.messageCount()) > 1 ? await branches.rewind({ toSeq: 0, actor: 'user', reason }) : undefined
  await port.edit({ seq: 0 }, message, { actor: 'user', reason })
  return { abandoned: rewound?.abandoned, left: rewound?.left ?? 0 }
}
