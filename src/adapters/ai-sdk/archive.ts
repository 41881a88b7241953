/**
 * Writing a session's messages exactly once. Every message object the session archived (by `append`,
 * `prepareStep` or `onStepEnd`) is remembered by identity, and the AI SDK hands the same objects to
 * `prepareStep` (`responseMessages`), to `onStepEnd` (`response.messages`) and back in
 * `result.responseMessages` — so any mix of the three archives each message once. Writes are queued, so
 * a step's archive and the window read after it never interleave with another call of the session.
 */
import type { LedgerEntry } from '../../store/store-types.js'
import type { LedgerPort } from './port.js'

/** The session's writer: a queue of calls and the message objects already archived. */
export class Archive {
  private readonly archived = new WeakSet<object>()
  private queue: Promise<unknown> = Promise.resolve()

  /**
   * @param port - the session's store access
   * @param enforce - brings the window within its limits (evicting, or folding into a summary)
   */
  constructor(
    private readonly port: LedgerPort,
    private readonly enforce: () => Promise<unknown>,
  ) {}

  /**
   * Runs `fn` after every call queued before it.
   *
   * @param fn - the work
   * @returns its result
   */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn)
    this.queue = next.catch(() => undefined)
    return next
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
   * Appends the messages not archived yet (checked first, all or none), then applies the window limits.
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
    const fresh = messages.filter((m) => !this.has(m))
    if (fresh.length === 0) return []
    const checked = await check(fresh)
    const entries = checked.length === 0 ? [] : await this.port.append(checked)
    for (const m of fresh) if (typeof m === 'object' && m !== null) this.archived.add(m)
    await this.enforce()
    return entries
  }
}
