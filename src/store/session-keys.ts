/**
 * The session-key cache: each session id's integer key (`sessions.pk`), which every other table uses,
 * remembered per connection so that the hot calls skip the lookup by id. A cached key can go stale —
 * another connection may delete a session and create it again under a new key, and a rolled-back
 * transaction may have created the session whose key was cached — so every read that finds nothing under
 * a cached key, and every row read by key, checks it.
 */
import type { SessionForAppendRow, Statements } from '../db/statements.js'

/** The keys of the sessions one connection has seen. */
export class SessionKeys {
  private readonly pks = new Map<string, number>()
  /**
   * Each session's stored format name (null: `'strands'`) with the key it was read under: a session's
   * format never changes, but a session deleted and created again by another connection is another
   * session, under another key, perhaps in another format.
   */
  private readonly formats = new Map<string, { pk: number; format: string | null }>()

  /**
   * @param st - the connection's statements
   */
  constructor(private readonly st: Statements) {}

  /**
   * Remembers a session's key, read in a transaction that may still roll back (see {@link clear}).
   *
   * @param sessionId - the session
   * @param pk - its key
   */
  remember(sessionId: string, pk: number): void {
    this.pks.set(sessionId, pk)
    if (this.formats.get(sessionId)?.pk !== pk) this.formats.delete(sessionId)
  }

  /**
   * Forgets one session's key (it was deleted).
   *
   * @param sessionId - the session
   */
  forget(sessionId: string): void {
    this.pks.delete(sessionId)
    this.formats.delete(sessionId)
  }

  /** Forgets every key: a rolled-back write may have created a session whose key was cached. */
  clear(): void {
    this.pks.clear()
    this.formats.clear()
  }

  /**
   * A session's stored message format, cached or looked up. Given the key a read just used, a format
   * cached under another key is looked up again; without one, a cached format can be stale when another
   * connection deleted the session and created it again in another format, so a write checks it again
   * against the row it reads (see `store/format-retry.ts`).
   *
   * @param sessionId - the session
   * @param pk - the session's key as the caller just read it, if it did
   * @returns the stored name (null: `'strands'`), or undefined when the session does not exist
   */
  formatOf(sessionId: string, pk?: number): string | null | undefined {
    const cached = this.formats.get(sessionId)
    if (cached !== undefined && (pk === undefined || cached.pk === pk)) return cached.format
    const row = this.st.sessionById.get(sessionId)
    if (row === undefined) {
      this.forget(sessionId)
      return undefined
    }
    this.pks.set(sessionId, row.pk)
    this.formats.set(sessionId, { pk: row.pk, format: row.format })
    return row.format
  }

  /**
   * A session's key, cached or looked up.
   *
   * @param sessionId - the session
   * @returns its key, or undefined when the session does not exist
   */
  pk(sessionId: string): number | undefined {
    const cached = this.pks.get(sessionId)
    if (cached !== undefined) return cached
    const row = this.st.sessionById.get(sessionId)
    if (row !== undefined) this.pks.set(sessionId, row.pk)
    return row?.pk
  }

  /**
   * Looks a session's key up again after a read with the cached `pk` found nothing: another connection may
   * have deleted the session, and created it again under a new key.
   *
   * @param sessionId - the session
   * @param pk - the key the read used
   * @returns the new key, or undefined when it is the same or the session is gone
   */
  recheck(sessionId: string, pk: number): number | undefined {
    this.pks.delete(sessionId)
    this.formats.delete(sessionId)
    const fresh = this.pk(sessionId)
    return fresh === pk ? undefined : fresh
  }

  /**
   * A session's row, by its cached key when that still names it.
   *
   * @param sessionId - the session
   * @returns the row, or undefined when the session does not exist
   */
  sessionRow(sessionId: string): SessionForAppendRow | undefined {
    const pk = this.pk(sessionId)
    if (pk === undefined) return undefined
    const row = this.st.sessionByPk.get(pk)
    if (row?.id === sessionId) return row
    // A cached key that no longer names this session (deleted, or its creation rolled back): look it up
    // again; the format cached with that key goes with it.
    this.forget(sessionId)
    return this.st.sessionById.get(sessionId)
  }
}
