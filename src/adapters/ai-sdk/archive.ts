/**
 * Writing a session's messages exactly once. Every message object the session archived (by `append`,
 * `prepareStep` or `onStepEnd`) is remembered by identity, and the AI SDK hands the same objects to
 * `prepareStep` (`responseMessages`), to `onStepEnd` (`response.messages`) and back in
 * `result.responseMessages` — so any mix of the three archives each message once. Writes are queued, so
 * a step's archive and the window read after it never interleave with another call of the session.
 *
 * The queue and the archived objects belong to the session, not to one `ledgerSession` object: every
 * `ledgerSession` of the same store and sessionId in a process shares them ({@link sessionState}), so a
 * route that opens a session per request cannot interleave two requests' read-then-write saves (two
 * tabs' POSTs would otherwise both find an id missing and both append it), and a message one of them
 * archived is skipped by the other.
 */
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort } from '../port.js'
import { serial, type SessionState } from '../session-queue.js'

export { sessionState, type SessionState } from '../session-queue.js'

/** What the store's retry rule compares of a ModelMessage (role and content), for a plain-JSON copy too. */
const contentKey = (message: unknown): string | undefined => {
  if (typeof message !== 'object' || message === null) return undefined
  const { role, content } = JSON.parse(JSON.stringify(message)) as { role?: unknown; content?: unknown }
  return JSON.stringify([role, content])
}

/** The session's writer: a queue of calls and the message objects already archived. */
export class Archive {
  private get archived(): WeakSet<object> {
    return this.state.archived
  }

  /**
   * @param port - the session's store access
   * @param enforce - brings the window within its limits (evicting, or folding into a summary)
   * @param state - the session's shared queue and archived objects ({@link sessionState})
   */
  constructor(
    private readonly port: LedgerPort,
    private readonly enforce: () => Promise<unknown>,
    private readonly state: SessionState = { queue: Promise.resolve(), archived: new WeakSet() },
  ) {}

  /**
   * Runs `fn` after every call queued before it.
   *
   * @param fn - the work
   * @returns its result
   */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    return serial(this.state, fn)
  }

  /**
   * Whether this object was archived by this session.
   *
   * @param message - a message object
   * @returns true when it was
   */
  has(message: unknown): boolean {
    return typeof message === 'object' && message !== null && this.archived.has(message)
  }

  /**
   * Remembers message objects written another way (an edit's new message), so a later `append`,
   * `prepareStep` or `onStepEnd` given the same object skips it.
   *
   * @param messages - the objects
   */
  remember(messages: readonly unknown[]): void {
    for (const m of messages) if (typeof m === 'object' && m !== null) this.archived.add(m)
  }

  /**
   * How many of `messages`, from the first, are copies of the session's newest stored messages: the
   * longest run of them whose content (role and content, as the format's retry rule compares) equals the
   * archive's tail. A ModelMessage has no id, so a JSON copy of messages the session archived (a server
   * that re-serializes `responseMessages`, or the window sent back as `messages`) is known only this way;
   * the price is that a message sent again right after an equal one (a prompt retried) is one message.
   *
   * @param messages - the messages not archived by identity, oldest first
   * @returns how many of them to skip
   */
  private async overlap(messages: readonly unknown[]): Promise<number> {
    const count = await this.port.messageCount()
    const most = Math.min(messages.length, count)
    if (most === 0) return 0
    const tail = (await this.port.history(count - most, most)).map((e) => contentKey(e.message))
    const keys = messages.slice(0, most).map(contentKey)
    for (let k = most; k > 0; k--)
      if (keys.slice(0, k).every((key, i) => key === tail[most - k + i])) return k
    return 0
  }

  /**
   * Appends the messages not archived yet (checked first, all or none) but for copies of the archive's
   * tail ({@link overlap}), then applies the window limits.
   * Call inside {@link serial}.
   *
   * @param messages - the messages, oldest first
   * @param check - the SDK's validation of the new ones; what it returns is what is written
   * @returns the new entries
   */
  async write(
    messages: readonly unknown[],
    check: (fresh: unknown[]) => Promise<readonly unknown[]> | readonly unknown[],
  ): Promise<LedgerEntry[]> {
    const unseen = messages.filter((m) => !this.has(m))
    if (unseen.length === 0) return []
    // Checked before anything reads them; what the check returns is one message per message given.
    const checked = await check(unseen)
    const fresh = checked.slice(await this.overlap(checked))
    const entries = fresh.length === 0 ? [] : await this.port.append(fresh)
    for (const m of unseen) if (typeof m === 'object' && m !== null) this.archived.add(m)
    if (fresh.length === 0) return []
    await this.enforce()
    return entries
  }
}
