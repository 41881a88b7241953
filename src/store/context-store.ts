/**
 * `ContextStore`: one SQLite file holding any number of sessions. It owns every transaction: appends,
 * pins and window changes each run in one `BEGIN IMMEDIATE` transaction that either commits whole or
 * leaves the file as it was. Reads run as single statements or read transactions, so they always see a
 * committed state. All calls are synchronous, like better-sqlite3's.
 */
import type Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { openDatabase, type OpenDatabaseOptions } from '../db/open.js'
import { toLedgerError } from '../db/sqlite-errors.js'
import {
  prepareStatements,
  type MessageRow,
  type SessionForAppendRow,
  type SessionRow,
  type Statements,
} from '../db/statements.js'
import { withPinFlag, hasPinFlag } from '../messages/pin-flag.js'
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits } from '../messages/schema.js'
import { classifyMessage, isToolPairStart, isTrimPoint, type MessageClass } from '../messages/classify.js'
import { estimateTokens, type TokenCounter } from '../messages/tokens.js'
import type { StoredMessageData } from '../messages/types.js'
import { planCut, protectedToRestore, type ReduceMode, type WindowPlan } from '../window/plan-cut.js'
import type { WindowLimits } from '../window/window-options.js'
import { interruptedToolResults } from './interrupted-tool-results.js'
import { Transactions } from './transactions.js'
import { contentKey, prepareMessage, type PreparedMessage } from './prepare-message.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { ArrayLedgerView } from '../window/array-view.js'

/** Options for {@link openContextStore}. */
export interface ContextStoreOptions extends OpenDatabaseOptions {
  /** Validation limits for incoming messages. */
  limits?: Partial<MessageLimits>
}

/** One archived message with its ledger facts. */
export interface LedgerEntry {
  /** The session it belongs to. */
  readonly sessionId: string
  /** Its position in the session, from 0. */
  readonly seq: number
  /** Its tracking id. */
  readonly trackingId: string
  /** The message exactly as appended. */
  readonly message: StoredMessageData
  /** Token count recorded on append. */
  readonly tokens: number
  /** Whether it is pinned now. */
  readonly pinned: boolean
  /** Whether it is in the current window. */
  readonly inWindow: boolean
  /** When it was appended. */
  readonly createdAt: Date
  /** What the window shows instead of `message` (e.g. truncated tool results), when set. */
  readonly windowMessage: StoredMessageData | undefined
  /**
   * Set on an entry returned by `append()` when the store had to record a repair row just before this
   * message: error results for tool calls the previous message left open (see docs/reliability.md).
   */
  readonly repair?: LedgerEntry
}

/** A session as `sessions()` lists it. */
export interface SessionSummary {
  /** The session id. */
  readonly id: string
  /** Messages in the archive. */
  readonly messageCount: number
  /** Messages in the current window. */
  readonly windowMessages: number
  /** Tokens in the current window. */
  readonly windowTokens: number
  /** Tokens in the whole archive. */
  readonly totalTokens: number
  /** Pinned messages. */
  readonly pinnedCount: number
  /** First seq of the window's tail. */
  readonly boundary: number
  /** When the session was created. */
  readonly createdAt: Date
  /** When it last changed. */
  readonly updatedAt: Date
}

/** A pinned message with who pinned it, when and why. */
export interface PinnedMessage {
  /** The session it belongs to. */
  readonly sessionId: string
  /** Its seq. */
  readonly seq: number
  /** Its tracking id. */
  readonly trackingId: string
  /** The message, carrying `metadata.custom.pinned = true`. */
  readonly message: StoredMessageData
  /** Whether it is in the window (it always is once the window has been applied). */
  readonly inWindow: boolean
  /** When it was last pinned. */
  readonly pinnedAt: Date
  /** Who pinned it: `'user'`, `'agent'`, `'append'` (flag on the way in), or a caller-chosen name. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
}

/** One pin or unpin. */
export interface PinEvent {
  /** The session. */
  readonly sessionId: string
  /** The message's seq. */
  readonly seq: number
  /** The message's tracking id. */
  readonly trackingId: string
  /** What happened. */
  readonly action: 'pin' | 'unpin'
  /** Who did it. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
  /** When. */
  readonly at: Date
}

/** Names a message: by seq, by tracking id, or by its position in the current window. */
export type MessageRef = { seq: number } | { trackingId: string } | { windowIndex: number }

/** Who pins and why. */
export interface PinAttribution {
  /** Who: `'user'` (default), `'agent'`, `'rule'`, or any name. */
  actor?: string
  /** Why. */
  reason?: string
}

/** What a pin or unpin did. */
export interface PinResult {
  /** The message's seq. */
  readonly seq: number
  /** The message's tracking id. */
  readonly trackingId: string
  /** Whether the pinned state changed (false when it already was as asked). */
  readonly changed: boolean
  /** Messages brought back into the window (the pinned message and its tool partners). */
  readonly restored: number
}

/** What `applyWindow()` or `reduce()` did. */
export type WindowResult = Omit<WindowPlan, 'kept'>

const SESSION_ID_MAX = 256

const NO_STATE = Object.freeze({ boundary: 0, kept: [] })

/** Limits that protect pinned messages only: what an append may bring back without knowing the manager. */
const PINS_ONLY: WindowLimits = Object.freeze({
  windowSize: Number.MAX_SAFE_INTEGER,
  tokenBudget: undefined,
  first: 0,
  last: 0,
})

/**
 * A ledger file. Create one with {@link openContextStore}; share it between managers and sessions; close
 * it when done.
 */
export class ContextStore {
  /** The file path (or `':memory:'`). */
  readonly path: string
  private readonly db: Database.Database
  private readonly st: Statements
  private readonly limits: MessageLimits
  private readonly pks = new Map<string, number>()
  private readonly transactions: Transactions

  /**
   * Prefer {@link openContextStore}.
   *
   * @param path - a file path or `':memory:'`
   * @param options - connection and validation options
   */
  constructor(path: string, options: ContextStoreOptions = {}) {
    this.path = path
    this.limits = { ...DEFAULT_MESSAGE_LIMITS, ...options.limits }
    this.db = openDatabase(path, options)
    this.st = prepareStatements(this.db)
    this.transactions = new Transactions(this.db)
  }

  /** Whether the store is still open. */
  get open(): boolean {
    return this.db.open
  }

  /** Closes the file. Further calls throw `STORE_CLOSED`. Closing twice is harmless. */
  close(): void {
    if (this.db.open) this.db.close()
  }

  /**
   * The underlying better-sqlite3 connection, for read-only queries the API does not cover. Writing
   * through it bypasses every invariant.
   *
   * @returns the connection
   */
  connection(): Database.Database {
    this.ensureOpen()
    return this.db
  }

  // ---------------------------------------------------------------- writes

  /**
   * Appends messages to a session (created on first use), all or none. A message whose trackingId is
   * already in the session with the same role and content is skipped and its existing entry returned.
   *
   * @param sessionId - the session
   * @param messages - one message or several, oldest first
   * @param tokenCounter - counts each message's tokens (default: the built-in estimator)
   * @returns one entry per input message, in order
   * @throws ContextLedgerError `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`, `DUPLICATE_MESSAGE`, `STORAGE_FULL`
   */
  append(sessionId: string, messages: unknown, tokenCounter: TokenCounter = estimateTokens): LedgerEntry[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    const inputs: unknown[] = Array.isArray(messages) ? messages : [messages]
    const batch = Array.isArray(messages)
    const prepared = inputs.map((m, i) => prepareMessage(m, batch ? i : -1, tokenCounter, this.limits))
    if (prepared.length === 0) return []
    return this.write(sessionId, () => {
      const before = this.st.sessionById.get(sessionId) as SessionForAppendRow | undefined
      if (before !== undefined) this.pks.set(sessionId, before.pk)
      const entries = this.appendPrepared(sessionId, prepared, before, batch)
      // A new session, or one whose window's tail is empty after a cut: see skipInvalidStart.
      if (before === undefined || before.boundary === before.message_count) {
        const pk = before?.pk ?? (this.st.sessionById.get(sessionId) as SessionRow).pk
        const from = before?.boundary ?? 0
        const { boundary, skippedPinned } = this.skipInvalidStart(pk, from)
        if (boundary === from) return entries
        // A message appended pinned stays in the window even so (with its tool partners and a lead).
        const kept = new Set<number>()
        if (skippedPinned) {
          const session = this.st.sessionByPk.get(pk) as SessionRow
          for (const s of protectedToRestore(new SqlLedgerView(this.st, session), PINS_ONLY)) kept.add(s)
          for (const s of kept) this.st.setKept.run(1, pk, s)
        }
        return entries.map((e) => (e.seq < boundary && !kept.has(e.seq) ? { ...e, inWindow: false } : e))
      }
      return entries
    })
  }

  /**
   * In a new session, or after a cut that left the window's tail empty, messages that cannot continue
   * the window go straight to the archive — the boundary moves past them — so the window stays valid for
   * a provider between appends: with nothing kept, anything but a user message without toolResult (an
   * assistant greeting, a reply or result whose question left); with kept messages, a tool result none of
   * whose calls is in the window.
   */
  private skipInvalidStart(pk: number, boundary: number): { boundary: number; skippedPinned: boolean } {
    const count = (this.st.sessionByPk.get(pk) as SessionRow).message_count
    // Read the kept rows only when the first new message is not a user message without toolResult, which
    // continues any window (the common case: a new turn).
    let kept: Set<number> | undefined
    let start = boundary
    let skippedPinned = false
    for (; start < count; start++) {
      const f = this.st.flagsBySeq.get(pk, start) as { role: string; has_tool_result: number; pinned: number }
      if (f.role === 'user' && f.has_tool_result === 0) break
      const inWindow = (kept ??= new Set((this.st.keptSeqs.all(pk) as number[]).filter((s) => s < boundary)))
      if (inWindow.size > 0 && f.has_tool_result === 0) break
      if (inWindow.size > 0 && (this.st.usesOfResult.all(pk, start) as number[]).some((u) => inWindow.has(u)))
        break
      skippedPinned ||= f.pinned === 1
    }
    if (start > boundary) this.st.sessionBoundary.run(start, Date.now(), pk)
    return { boundary: start, skippedPinned }
  }

  /**
   * Enforces the window limits (`apply`) or makes room after a context overflow (`overflow`).
   *
   * @param sessionId - the session
   * @param limits - window size, token budget, protected ranges
   * @param mode - `apply` or `overflow`
   * @returns how many messages left the window, and why none did when none did
   */
  applyWindow(sessionId: string, limits: WindowLimits, mode: ReduceMode = 'apply'): WindowResult {
    this.ensureOpen()
    checkSessionId(sessionId)
    return this.write(sessionId, () => {
      const session = this.sessionRow(sessionId)
      // A session with no messages yet is not created by asking; it reports what an empty one would.
      if (session === undefined) {
        const { kept: _none, ...empty } = planCut(new ArrayLedgerView([], [], [], NO_STATE), limits, mode)
        return empty
      }
      const view = new SqlLedgerView(this.st, session)
      const { kept, ...result } = planCut(view, limits, mode)
      const oldKept = new Set(view.kept)
      const newKept = new Set(kept)
      for (const s of oldKept) if (!newKept.has(s)) this.st.setKept.run(0, session.pk, s)
      for (const s of newKept) if (!oldKept.has(s)) this.st.setKept.run(1, session.pk, s)
      if (result.boundary !== session.boundary)
        this.st.sessionBoundary.run(result.boundary, Date.now(), session.pk)
      else if (result.evicted > 0 || result.restored > 0) this.st.sessionTouch.run(Date.now(), session.pk)
      return result
    })
  }

  /**
   * Pins or unpins a message and records who did it and why. Pinning a message that left the window
   * brings it back at once, with its tool partners; unpinning lets it go at the next window application.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param pinned - the state to set
   * @param attribution - actor and reason for the pin log
   * @param limits - the limits in force (their protected ranges decide what else comes back)
   * @returns what changed
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  setPinned(
    sessionId: string,
    ref: MessageRef,
    pinned: boolean,
    attribution: PinAttribution,
    limits: WindowLimits,
  ): PinResult {
    this.ensureOpen()
    checkSessionId(sessionId)
    return this.write(sessionId, () => {
      const { session, row } = this.find(sessionId, ref)
      if (Boolean(row.pinned) === pinned)
        return { seq: row.seq, trackingId: row.uid, changed: false, restored: 0 }
      const now = Date.now()
      this.st.setPinned.run(pinned ? 1 : 0, session.pk, row.seq)
      this.st.insertPinEvent.run(
        session.pk,
        row.seq,
        pinned ? 'pin' : 'unpin',
        attribution.actor ?? 'user',
        attribution.reason ?? null,
        now,
      )
      let restored = 0
      if (pinned && row.seq < session.boundary) {
        const view = new SqlLedgerView(this.st, session)
        for (const s of protectedToRestore(view, limits)) {
          this.st.setKept.run(1, session.pk, s)
          restored++
        }
      }
      this.st.sessionTouch.run(now, session.pk)
      return { seq: row.seq, trackingId: row.uid, changed: true, restored }
    })
  }

  /**
   * Sets what the window shows for one message, leaving the archived original untouched — for example
   * the message with oversized tool results truncated. `null` restores the original. The replacement must
   * keep the role, the trackingId and the toolUse / toolResult ids of the original, so tool pairs and
   * identity survive.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the replacement, or null to show the original again
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`
   */
  setWindowContent(sessionId: string, ref: MessageRef, message: unknown): void {
    this.ensureOpen()
    checkSessionId(sessionId)
    const replacement = message === null ? null : prepareMessage(message, -1, () => 0, this.limits)
    this.write(sessionId, () => {
      const { session, row } = this.find(sessionId, ref)
      if (replacement !== null) {
        const original = JSON.parse(row.body) as StoredMessageData
        const ids = (m: StoredMessageData): string => {
          const c = classifyMessage(m)
          return JSON.stringify([m.role, m.trackingId, c.toolUseIds, c.toolResultIds])
        }
        if (ids(original) !== ids(replacement.message))
          throw new ContextLedgerError(
            'INVALID_MESSAGE',
            `A window replacement for seq ${row.seq} must keep the role, trackingId and tool ids of the original`,
            { sessionId, path: '(message)' },
          )
      }
      this.st.setWindowBody.run(replacement === null ? null : replacement.body, session.pk, row.seq)
      this.st.sessionTouch.run(Date.now(), session.pk)
    })
  }

  // ---------------------------------------------------------------- reads

  /**
   * The messages the model should see, in order. Pinned messages carry `metadata.custom.pinned = true`.
   *
   * @param sessionId - the session
   * @returns the window (empty for an unknown session)
   */
  window(sessionId: string): StoredMessageData[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    const pk = this.pk(sessionId)
    if (pk === undefined) return []
    let rows: { body: string; pinned: number }[]
    try {
      rows = this.st.window.all({ s: pk }) as { body: string; pinned: number }[]
    } catch (error) {
      throw toLedgerError(error, `read the window of session "${sessionId}"`, sessionId)
    }
    const out = new Array<StoredMessageData>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as { body: string; pinned: number }
      const message = JSON.parse(row.body) as StoredMessageData
      out[i] = row.pinned === 1 || hasPinFlag(message) ? withPinFlag(message, row.pinned === 1) : message
    }
    return out
  }

  /**
   * The archive, evicted messages included, in seq order.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries, oldest first
   */
  history(sessionId: string, options: { fromSeq?: number; limit?: number } = {}): LedgerEntry[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    const fromSeq = options.fromSeq ?? 0
    const limit = options.limit ?? 100
    if (!Number.isSafeInteger(fromSeq) || fromSeq < 0 || !Number.isSafeInteger(limit) || limit < 0)
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `history() takes a non-negative integer fromSeq and limit, got fromSeq ${fromSeq} and limit ${limit}`,
      )
    return this.read(() => {
      const session = this.sessionRow(sessionId)
      if (session === undefined) return []
      const rows = this.st.history.all(session.pk, fromSeq, limit) as MessageRow[]
      return rows.map((r) => toEntry(session, r))
    })
  }

  /**
   * One archived message.
   *
   * @param sessionId - the session
   * @param ref - by seq, tracking id or window position
   * @returns its entry
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`
   */
  message(sessionId: string, ref: MessageRef): LedgerEntry {
    this.ensureOpen()
    checkSessionId(sessionId)
    return this.read(() => {
      const { session, row } = this.find(sessionId, ref)
      return toEntry(session, row)
    })
  }

  /**
   * Every session in the file with its sizes.
   *
   * @returns sessions ordered by id
   */
  sessions(): SessionSummary[] {
    this.ensureOpen()
    return this.read(() => (this.st.allSessions.all() as SessionRow[]).map((s) => this.summarize(s)))
  }

  /**
   * One session's summary.
   *
   * @param sessionId - the session
   * @returns its summary, or undefined when it does not exist yet
   */
  session(sessionId: string): SessionSummary | undefined {
    this.ensureOpen()
    checkSessionId(sessionId)
    return this.read(() => {
      const row = this.sessionRow(sessionId)
      return row === undefined ? undefined : this.summarize(row)
    })
  }

  /**
   * Pinned messages with when, who and why they were pinned.
   *
   * @param options - `sessionId` to restrict to one session; all sessions when omitted
   * @returns pinned messages ordered by session and seq
   */
  pinnedMessages(options: { sessionId?: string } = {}): PinnedMessage[] {
    this.ensureOpen()
    return this.read(() => {
      let rows: unknown[]
      if (options.sessionId === undefined) rows = this.st.allPinnedMessages.all()
      else {
        const pk = this.pk(options.sessionId)
        if (pk === undefined) return []
        rows = this.st.pinnedMessages.all(pk)
      }
      return (
        rows as {
          session_id: string
          seq: number
          uid: string
          body: string
          kept: number
          boundary: number
          actor: string | null
          reason: string | null
          at: number | null
        }[]
      ).map((r) => ({
        sessionId: r.session_id,
        seq: r.seq,
        trackingId: r.uid,
        message: withPinFlag(JSON.parse(r.body) as StoredMessageData, true),
        inWindow: r.seq >= r.boundary || r.kept === 1,
        pinnedAt: new Date(r.at ?? 0),
        actor: r.actor ?? 'append',
        reason: r.reason ?? undefined,
      }))
    })
  }

  /**
   * The pin log of a session, oldest first.
   *
   * @param sessionId - the session
   * @returns every pin and unpin
   */
  pinEvents(sessionId: string): PinEvent[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    const pk = this.pk(sessionId)
    if (pk === undefined) return []
    const rows = this.st.pinEvents.all(pk) as {
      session_id: string
      seq: number
      uid: string
      action: 'pin' | 'unpin'
      actor: string
      reason: string | null
      at: number
    }[]
    return rows.map((r) => ({
      sessionId: r.session_id,
      seq: r.seq,
      trackingId: r.uid,
      action: r.action,
      actor: r.actor,
      reason: r.reason ?? undefined,
      at: new Date(r.at),
    }))
  }

  // ---------------------------------------------------------------- internals

  private ensureOpen(): void {
    if (!this.db.open) throw new ContextLedgerError('STORE_CLOSED', `The store for ${this.path} is closed`)
  }

  private pk(sessionId: string): number | undefined {
    const cached = this.pks.get(sessionId)
    if (cached !== undefined) return cached
    const row = this.st.sessionById.get(sessionId) as SessionRow | undefined
    if (row !== undefined) this.pks.set(sessionId, row.pk)
    return row?.pk
  }

  private sessionRow(sessionId: string): SessionRow | undefined {
    const pk = this.pk(sessionId)
    if (pk === undefined) return undefined
    const row = this.st.sessionByPk.get(pk) as SessionRow | undefined
    if (row?.id === sessionId) return row
    // A cached key that no longer names this session (its creation was rolled back): look it up again.
    this.pks.delete(sessionId)
    return this.st.sessionById.get(sessionId) as SessionRow | undefined
  }

  /** The session and the row of the message `ref` names; `MESSAGE_NOT_FOUND` when either is missing. */
  private find(sessionId: string, ref: MessageRef): { session: SessionRow; row: MessageRow } {
    const session = this.sessionRow(sessionId)
    const seq = session === undefined ? undefined : this.resolveSeq(session, ref)
    const row =
      session === undefined || seq === undefined
        ? undefined
        : (this.st.messageBySeq.get(session.pk, seq) as MessageRow | undefined)
    if (session === undefined || row === undefined) throw notFound(sessionId, ref)
    return { session, row }
  }

  /** Creates the session row inside the caller's write transaction; the key is cached only once it commits. */
  private createSession(sessionId: string): SessionRow {
    const now = Date.now()
    this.st.insertSession.run(sessionId, now, now, null)
    return this.st.sessionById.get(sessionId) as SessionRow
  }

  private resolveSeq(session: SessionRow, ref: MessageRef): number | undefined {
    if ('seq' in ref) return Number.isSafeInteger(ref.seq) && ref.seq >= 0 ? ref.seq : undefined
    if ('trackingId' in ref) {
      const row = this.st.messageByUid.get(session.pk, ref.trackingId) as MessageRow | undefined
      return row?.seq
    }
    const i = ref.windowIndex
    if (!Number.isSafeInteger(i) || i < 0) return undefined
    const kept = (this.st.keptSeqs.all(session.pk) as number[]).filter((s) => s < session.boundary)
    if (i < kept.length) return kept[i]
    const seq = session.boundary + i - kept.length
    return seq < session.message_count ? seq : undefined
  }

  private summarize(s: SessionRow): SessionSummary {
    const keptCount = this.st.keptCount.get(s.pk, s.boundary) as number
    const keptTokens = this.st.keptTokens.get(s.pk, s.boundary) as number
    const before = s.boundary > 0 ? ((this.st.cumAt.get(s.pk, s.boundary - 1) as number | undefined) ?? 0) : 0
    return {
      id: s.id,
      messageCount: s.message_count,
      windowMessages: keptCount + s.message_count - s.boundary,
      windowTokens: keptTokens + s.total_tokens - before,
      totalTokens: s.total_tokens,
      pinnedCount: this.st.pinnedCount.get(s.pk) as number,
      boundary: s.boundary,
      createdAt: new Date(s.created_at),
      updatedAt: new Date(s.updated_at),
    }
  }

  private appendPrepared(
    sessionId: string,
    prepared: readonly PreparedMessage[],
    known: SessionForAppendRow | undefined,
    batch: boolean,
  ): LedgerEntry[] {
    const session = known ?? this.createSession(sessionId)
    const pk = session.pk
    const now = Date.now()
    let n = session.message_count
    let total = session.total_tokens
    // The previous message: its class (for the flags the next message settles), the flags it was written
    // with, and whether it was appended by this call (then its calls are all still open, with real ids).
    let prev: { seq: number; cls: MessageClass; trim: boolean; pair: boolean; inBatch: boolean } | undefined
    if (known !== undefined && known.last_role !== null) {
      prev = {
        seq: n - 1,
        // Only the role and whether tool blocks are present matter for the flags the next message sets.
        cls: {
          role: known.last_role,
          toolUseIds: known.last_has_tool_use ? ['?'] : [],
          toolResultIds: known.last_has_tool_result ? ['?'] : [],
          plainUser: known.last_plain_user === 1,
        },
        trim: known.last_trim_point === 1,
        pair: known.last_pair_start === 1,
        inBatch: false,
      }
    }
    // `next` is the message expected to follow (the next one of the batch): flags that depend on it are
    // written with the row, and corrected below in the rare case something else followed.
    const insert = (m: PreparedMessage, next: MessageClass | undefined, index: number): number => {
      const seq = n
      total += m.tokens
      const c = m.cls
      const trim = isTrimPoint(c, next)
      const pair = isToolPairStart(c, next)
      this.st.insertMessage.run(
        pk,
        seq,
        m.message.trackingId,
        c.role,
        m.body,
        m.tokens,
        total,
        m.pinned ? 1 : 0,
        c.plainUser ? 1 : 0,
        trim ? 1 : 0,
        pair ? 1 : 0,
        c.toolUseIds.length > 0 ? 1 : 0,
        c.toolResultIds.length > 0 ? 1 : 0,
        now,
      )
      if (prev !== undefined) {
        const prevTrim = isTrimPoint(prev.cls, c)
        const prevPair = isToolPairStart(prev.cls, c)
        if (prevTrim !== prev.trim || prevPair !== prev.pair)
          this.st.setCutFlags.run(prevTrim ? 1 : 0, prevPair ? 1 : 0, pk, prev.seq)
      }
      for (const r of m.toolResults) {
        // Every result answers a call: one the session never made, or already answered (by an earlier
        // result, or by a repair row because the conversation went on first), would break the window.
        if (this.st.answerToolCall.run(seq, r.status, pk, r.id).changes === 0) {
          const path = `${batch ? `[${index}].` : ''}content[${r.block}].toolResult.toolUseId`
          throw new ContextLedgerError(
            'INVALID_MESSAGE',
            `Invalid message at ${path}: no call "${r.id}" is waiting for a result in session "${sessionId}" ` +
              '(never made, or already answered — a call left open is answered by a repair row as soon as ' +
              'another message follows it)',
            { path, sessionId },
          )
        }
      }
      for (const u of m.toolUses) this.st.insertToolCall.run(pk, u.id, u.name, seq)
      if (m.pinned) this.st.insertPinEvent.run(pk, seq, 'pin', 'append', 'metadata.custom.pinned', now)
      prev = { seq, cls: c, trim, pair, inBatch: true }
      n++
      return seq
    }
    const entries: LedgerEntry[] = []
    const entryOf = (m: PreparedMessage, seq: number): LedgerEntry => ({
      sessionId,
      seq,
      trackingId: m.message.trackingId,
      message: m.message,
      tokens: m.tokens,
      pinned: m.pinned,
      inWindow: true,
      createdAt: new Date(now),
      windowMessage: undefined,
    })
    for (let i = 0; i < prepared.length; i++) {
      const m = prepared[i] as PreparedMessage
      let repair: LedgerEntry | undefined
      const existing = m.minted
        ? undefined
        : (this.st.messageByUid.get(pk, m.message.trackingId) as MessageRow | undefined)
      if (existing !== undefined) {
        const stored = JSON.parse(existing.body) as StoredMessageData
        if (contentKey(stored) !== contentKey(m.message))
          throw new ContextLedgerError(
            'DUPLICATE_MESSAGE',
            `Session "${sessionId}" already holds a different message with trackingId ${m.message.trackingId} (seq ${existing.seq})`,
            { sessionId },
          )
        entries.push(toEntry({ ...session, message_count: n }, existing))
        continue
      }
      // Calls of the previous message that this one does not answer can never be answered in a valid
      // conversation any more: record error results for them first (see interrupted-tool-results.ts).
      if (prev !== undefined && prev.cls.toolUseIds.length > 0) {
        const answered = new Set(m.cls.toolResultIds)
        const open = prev.inBatch
          ? prev.cls.toolUseIds
          : (this.st.openCallsOfUse.all(pk, prev.seq) as string[])
        const missing = open.filter((id) => !answered.has(id))
        if (missing.length > 0) {
          const row = interruptedToolResults(missing, this.limits)
          repair = entryOf(row, insert(row, m.cls, i))
        }
      }
      const seq = insert(m, prepared[i + 1]?.cls, i)
      entries.push(repair === undefined ? entryOf(m, seq) : { ...entryOf(m, seq), repair })
    }
    return entries
  }

  /**
   * Runs `fn` in one write transaction (see {@link Transactions.write}: the lock is taken up front, and
   * a busy lock is waited for up to the busy timeout in all). SQLite failures become typed errors.
   */
  private write<T>(sessionId: string, fn: () => T): T {
    try {
      return this.transactions.write(fn)
    } catch (error) {
      // A rolled-back transaction may have created a session whose key was cached: forget them all.
      this.pks.clear()
      throw toLedgerError(error, `write to session "${sessionId}"; nothing was written`, sessionId)
    }
  }

  /** Runs `fn` in a read transaction, so multi-statement reads see one snapshot. */
  private read<T>(fn: () => T): T {
    try {
      return this.transactions.read(fn)
    } catch (error) {
      throw toLedgerError(error, `read ${this.path}`)
    }
  }
}

function toEntry(session: SessionRow, row: MessageRow): LedgerEntry {
  return {
    sessionId: session.id,
    seq: row.seq,
    trackingId: row.uid,
    message: JSON.parse(row.body) as StoredMessageData,
    tokens: row.tokens,
    pinned: row.pinned === 1,
    inWindow: row.seq >= session.boundary || row.kept === 1,
    createdAt: new Date(row.created_at),
    windowMessage: row.window_body === null ? undefined : (JSON.parse(row.window_body) as StoredMessageData),
  }
}

function notFound(sessionId: string, ref: MessageRef): ContextLedgerError<'MESSAGE_NOT_FOUND'> {
  return new ContextLedgerError(
    'MESSAGE_NOT_FOUND',
    `No message ${JSON.stringify(ref)} in session "${sessionId}"`,
    { sessionId },
  )
}

function checkSessionId(sessionId: unknown): void {
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > SESSION_ID_MAX)
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `A sessionId is a non-empty string of at most ${SESSION_ID_MAX} characters, got ${JSON.stringify(sessionId)}`,
    )
}

/**
 * Opens a ledger file, creating and migrating it as needed.
 *
 * @param path - a file path, or `':memory:'` for a throwaway store
 * @param options - busy timeout, durability and validation limits
 * @returns the store
 * @throws ContextLedgerError `NOT_A_LEDGER`, `CORRUPT_DATABASE` or `SCHEMA_TOO_NEW` (the file is left untouched)
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * ```
 */
export function openContextStore(path: string, options: ContextStoreOptions = {}): ContextStore {
  return new ContextStore(path, options)
}

export { checkSessionId }
