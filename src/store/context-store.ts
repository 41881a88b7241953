/**
 * `ContextStore`: one SQLite file holding any number of sessions. It owns every transaction: appends,
 * pins and window changes each run in one `BEGIN IMMEDIATE` transaction that either commits whole or
 * leaves the file as it was. Reads run as single statements or read transactions, so they always see a
 * committed state. All calls are synchronous, like better-sqlite3's.
 */
import type Database from 'better-sqlite3'
import { ContextLedgerError } from '../errors.js'
import { openDatabase } from '../db/open.js'
import { isBusy, toLedgerError, toReadError } from '../db/sqlite-errors.js'
import {
  prepareStatements,
  type MessageRow,
  type SessionForAppendRow,
  type SessionRow,
  type Statements,
} from '../db/statements.js'
import { withPinFlag, hasPinFlag } from '../messages/pin-flag.js'
import type { MessageLimits } from '../messages/schema.js'
import { classifyMessage, isToolPairStart, isTrimPoint, type MessageClass } from '../messages/classify.js'
import { estimateTokens, type TokenCounter } from '../messages/tokens.js'
import type { StoredMessageData } from '../messages/types.js'
import { redactedForm } from '../messages/redact.js'
import { alternateRoles } from '../window/alternate-roles.js'
import {
  planCut,
  protectedToRestore,
  type KeptChanges,
  type ReduceMode,
  type WindowPlan,
} from '../window/plan-cut.js'
import { toolComponent } from '../window/protection.js'
import type { WindowLimits } from '../window/window-options.js'
import { randomUUID } from 'node:crypto'
import { interruptedToolResults, MISSING_TOOL_RESULT_REPAIR } from './interrupted-tool-results.js'
import { lateResultsWindowForm, type LateResult } from './late-tool-results.js'
import { Transactions } from './transactions.js'
import { contentKey, prepareMessage, type PreparedMessage } from './prepare-message.js'
import { SqlLedgerView } from './sql-ledger-view.js'
import { ArrayLedgerView } from '../window/array-view.js'
import {
  checkAttribution,
  checkBoolean,
  checkHistoryOptions,
  checkMessageRef,
  checkPinnedMessagesOptions,
  checkRedactOptions,
  checkReduceMode,
  checkWindowReadOptions,
  checkSessionId,
  checkTokenCounter,
  checkWindowLimits,
  type HistoryOptions,
  type MessageRef,
  type PinAttribution,
  type PinnedMessagesOptions,
} from './check-args.js'
import { resolveStoreOptions, type ContextStoreOptions } from './store-options.js'
import {
  backupDatabase,
  checkBackupArgs,
  checkPruneOptions,
  LifecycleStatements,
  PRUNE_BATCH,
  prunedForm,
  type BackupOptions,
  type BackupResult,
  type DeleteSessionResult,
  type PruneOptions,
  type PruneResult,
} from './lifecycle.js'

export type { ContextStoreOptions } from './store-options.js'
export type { MessageRef, PinAttribution } from './check-args.js'
export type {
  BackupOptions,
  BackupResult,
  DeleteSessionResult,
  PruneOptions,
  PruneResult,
} from './lifecycle.js'

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
  /** What the window shows instead of `message` (e.g. truncated tool results, an edit), when set. */
  readonly windowMessage: StoredMessageData | undefined
  /**
   * The seq of the earlier message this one repeats: a message sent again under a trackingId the session
   * already held (not a retry of its newest messages) is stored as a new occurrence with a new trackingId.
   */
  readonly repeatOf: number | undefined
  /**
   * True when it holds a toolResult for a call that was no longer waiting (answered by a repair row or an
   * earlier result): archived as sent, shown in the window as text (`windowMessage`).
   */
  readonly late: boolean
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

/** Options of {@link ContextStore.window}. */
export interface WindowReadOptions {
  /** Merge runs of same-role messages so that roles strictly alternate. Default false. */
  alternate?: boolean | undefined
}

/** Who changes a message and why. */
export interface EditAttribution {
  /** Who: `'user'` (default), `'strands'`, or any name. */
  actor?: string
  /** Why. */
  reason?: string
}

/** Options of {@link ContextStore.redactMessage}. */
export interface RedactOptions extends EditAttribution {
  /**
   * What the archive keeps instead: a message with the original's role, trackingId and tool ids. Default:
   * the same shape with every content replaced by `[redacted]`.
   */
  replacement?: unknown | undefined
}

/** What {@link ContextStore.redactMessage} did. */
export type RedactResult = LedgerEntry & {
  /**
   * True when no byte of the original is left in the ledger's files. False while another connection
   * reads an older snapshot of the file: the store finishes the erasure at its next write, at
   * `completeErasure()` or at `close()`.
   */
  readonly erased: boolean
}

/** One entry of the edit log. */
export interface MessageEdit {
  /** The session. */
  readonly sessionId: string
  /** The message's seq. */
  readonly seq: number
  /** The message's trackingId. */
  readonly trackingId: string
  /** `'edit'`: the window shows a new form; `'redact'`: the original was erased from the archive. */
  readonly kind: 'edit' | 'redact'
  /** Who made the change. */
  readonly actor: string
  /** Why, when given. */
  readonly reason: string | undefined
  /** When. */
  readonly at: Date
  /** An edit's new form; undefined for a redaction and for edits a later redaction erased. */
  readonly message: StoredMessageData | undefined
}

/** What `applyWindow()` or `reduce()` did. */
export type WindowResult = Omit<WindowPlan, 'kept'>

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
  /** The validation limits every incoming message must meet (frozen). */
  readonly limits: Readonly<MessageLimits>
  /** A redaction's checkpoint could not finish yet (a reader held an older snapshot). */
  private erasurePending = false
  /** Opened with `readonly: true`: every write call throws `READ_ONLY`. */
  readonly readonly: boolean
  private readonly pks = new Map<string, number>()
  private readonly transactions: Transactions
  private readonly lifecycle: LifecycleStatements

  /**
   * Prefer {@link openContextStore}.
   *
   * @param path - a file path or `':memory:'`
   * @param options - connection and validation options
   * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option, and what {@link openContextStore} throws
   */
  constructor(path: string, options: ContextStoreOptions = {}) {
    const settings = resolveStoreOptions(path, options)
    this.path = path
    this.limits = Object.freeze({ ...settings.limits })
    this.readonly = settings.readonly
    this.db = openDatabase(path, settings)
    this.st = prepareStatements(this.db)
    this.transactions = new Transactions(this.db)
    this.lifecycle = new LifecycleStatements(this.db)
  }

  /** Whether the store is still open. */
  get open(): boolean {
    return this.db.open
  }

  /** Closes the file. Further calls throw `STORE_CLOSED`. Closing twice is harmless. */
  close(): void {
    if (!this.db.open) return
    // A redaction whose checkpoint a reader held up is finished now, if no reader still holds it up.
    if (this.erasurePending && !this.readonly) this.completeErasure()
    this.db.close()
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
    this.ensureWritable()
    checkSessionId(sessionId)
    checkTokenCounter(tokenCounter)
    const inputs: unknown[] = Array.isArray(messages) ? messages : [messages]
    const batch = Array.isArray(messages)
    const prepared = inputs.map((m, i) => prepareMessage(m, batch ? i : -1, tokenCounter, this.limits))
    if (prepared.length === 0) return []
    const appended = this.write(sessionId, () => {
      const before = this.st.sessionById.get(sessionId) as SessionForAppendRow | undefined
      if (before !== undefined) this.pks.set(sessionId, before.pk)
      const entries = this.appendPrepared(sessionId, prepared, before, batch)
      // A new session, or one whose window's tail is empty after a cut: see skipInvalidStart.
      if (before === undefined || before.boundary === before.message_count) {
        const pk = before?.pk ?? (this.st.sessionById.get(sessionId) as SessionRow).pk
        const from = before?.boundary ?? 0
        const { boundary, restored } = this.skipInvalidStart(pk, from)
        if (boundary === from) return entries
        return entries.map((e) => (e.seq < boundary && !restored.has(e.seq) ? { ...e, inWindow: false } : e))
      }
      return entries
    })
    if (this.erasurePending) this.completeErasure()
    return appended
  }

  /**
   * In a new session, or after a cut that left the window's tail empty, messages that cannot continue
   * the window go straight to the archive — the boundary moves past them — so the window stays valid for
   * a provider between appends: with nothing kept, anything but a user message without toolResult (an
   * assistant greeting, a reply or result whose question left); with kept messages, a tool result none of
   * whose calls is in the window. A pinned message skipped this way comes back at once (with its tool
   * partners and a lead), as a pin would bring it back.
   */
  private skipInvalidStart(pk: number, boundary: number): { boundary: number; restored: Set<number> } {
    const count = (this.st.sessionByPk.get(pk) as SessionRow).message_count
    // Whether anything is kept is asked only when the first new message is not a user message without
    // toolResult, which continues any window (the common case: a new turn).
    let anyKept: boolean | undefined
    let start = boundary
    const skippedPins: number[] = []
    for (; start < count; start++) {
      const f = this.st.flagsBySeq.get(pk, start) as { role: string; has_tool_result: number; pinned: number }
      if (f.role === 'user' && f.has_tool_result === 0) break
      anyKept ??= this.st.anyKept.get(pk) !== undefined
      if (anyKept && f.has_tool_result === 0) break
      const inWindow = (u: number): boolean =>
        u < boundary && (this.st.flagsBySeq.get(pk, u) as { kept: number } | undefined)?.kept === 1
      if (anyKept && (this.st.usesOfResult.all(pk, start) as number[]).some(inWindow)) break
      if (f.pinned === 1) skippedPins.push(start)
    }
    const restored = new Set<number>()
    if (start === boundary) return { boundary, restored }
    this.st.sessionBoundary.run(start, Date.now(), pk)
    if (skippedPins.length > 0) {
      // The protected ranges are the manager's; the ones the kept rows were last derived for stand in.
      const session = this.st.sessionByPk.get(pk) as SessionRow
      const limits = { ...PINS_ONLY, first: session.kept_first ?? 0 }
      const changes = protectedToRestore(new SqlLedgerView(this.st, session), limits, skippedPins)
      this.applyKeptChanges(session, changes, limits.first)
      for (const k of changes.keep) restored.add(k.seq)
    }
    return { boundary: start, restored }
  }

  /**
   * Writes a plan's changes to the kept rows and the session's kept totals (only what changed). After a
   * plan that examined every kept row, the marks match `first`, which is recorded.
   */
  private applyKeptChanges(session: SessionRow, changes: KeptChanges, first: number): void {
    const pk = session.pk
    for (const k of changes.keep) this.st.setKept.run(1, k.recheck ? 1 : 0, pk, k.seq)
    for (const s of changes.release) this.st.setKept.run(0, 0, pk, s)
    for (const m of changes.remark) this.st.setRecheck.run(m.recheck ? 1 : 0, pk, m.seq)
    const keptFirst = changes.complete ? first : session.kept_first
    if (
      changes.keptCount !== session.kept_count ||
      changes.keptTokens !== session.kept_tokens ||
      keptFirst !== session.kept_first
    )
      this.st.setKeptTotals.run(changes.keptCount, changes.keptTokens, keptFirst, pk)
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
    this.ensureWritable()
    checkSessionId(sessionId)
    checkWindowLimits(limits)
    checkReduceMode(mode)
    return this.write(sessionId, () => {
      const session = this.sessionRow(sessionId)
      // A session with no messages yet is not created by asking; it reports what an empty one would.
      if (session === undefined) return planCut(new ArrayLedgerView([], [], [], NO_STATE), limits, mode).plan
      const { plan, changes } = planCut(new SqlLedgerView(this.st, session), limits, mode)
      this.applyKeptChanges(session, changes, limits.first)
      if (plan.boundary !== session.boundary)
        this.st.sessionBoundary.run(plan.boundary, Date.now(), session.pk)
      else if (plan.evicted > 0 || plan.restored > 0) this.st.sessionTouch.run(Date.now(), session.pk)
      return plan
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
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    checkBoolean(pinned, 'pinned')
    attribution = checkAttribution(attribution)
    checkWindowLimits(limits)
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
      const view = new SqlLedgerView(this.st, session)
      if (pinned && row.seq < session.boundary) {
        // Just what this pin protects: its tool partners, and a lead if it is now the earliest.
        const changes = protectedToRestore(view, limits, [row.seq])
        this.applyKeptChanges(session, changes, limits.first)
        restored = changes.keep.length
      } else if (!pinned) {
        // Kept rows this pin protected may lose their protection: the next plan derives it again.
        for (const f of view.facts(toolComponent(view, row.seq)))
          if (f.kept && !f.recheck) this.st.setRecheck.run(1, session.pk, f.seq)
      }
      this.st.sessionTouch.run(now, session.pk)
      return { seq: row.seq, trackingId: row.uid, changed: true, restored }
    })
  }

  /**
   * Sets what the window shows for one message, leaving the archived original untouched — for example
   * the message with oversized tool results truncated. `null` restores the original. The replacement must
   * keep the role, the trackingId and the toolUse / toolResult ids of the original, so tool pairs and
   * identity survive. The window counts the replacement's own tokens (toward `tokenBudget`, in
   * `windowTokens`), counted here before the write lock is taken.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the replacement, or null to show the original again
   * @param tokenCounter - counts the replacement's tokens (default: the built-in estimator); pass the
   *   session's counter (a manager's `setWindowContent` does)
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`, `INVALID_TOKEN_COUNT`
   */
  setWindowContent(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    tokenCounter: TokenCounter = estimateTokens,
  ): void {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    checkTokenCounter(tokenCounter)
    const replacement = message === null ? null : prepareMessage(message, -1, tokenCounter, this.limits)
    this.write(sessionId, () => {
      const { session, row } = this.find(sessionId, ref)
      const next = replacement === null ? (JSON.parse(row.body) as StoredMessageData) : replacement.message
      if (replacement !== null) checkSameShape(sessionId, row, next, 'A window replacement')
      this.showInWindow(session, row, next, replacement?.tokens)
      this.st.sessionTouch.run(Date.now(), session.pk)
    })
  }

  /**
   * Edits a message as the model sees it: the window shows `message` from now on, the archive keeps the
   * original, and the change is recorded in the edit log (who, when, why, the new form). The edit must
   * keep the role, trackingId and tool ids of the original, so tool pairs survive. An edit equal to what
   * the window already shows records nothing; one equal to the archived original shows the original again.
   * In a message holding late tool results, those results stay shown as text whatever the edit says.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param message - the new form (its trackingId may be omitted)
   * @param attribution - who edits (default `'user'`) and why
   * @param tokenCounter - counts the edit's tokens (default: the built-in estimator); the window counts
   *   the message with them
   * @returns the message's entry after the edit
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE`, `INVALID_OPTIONS`, `READ_ONLY`
   */
  editMessage(
    sessionId: string,
    ref: MessageRef,
    message: unknown,
    attribution: EditAttribution = {},
    tokenCounter: TokenCounter = estimateTokens,
  ): LedgerEntry {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    const by = checkAttribution(attribution)
    checkTokenCounter(tokenCounter)
    const prepared = prepareMessage(message, -1, tokenCounter, this.limits)
    return this.write(sessionId, () => {
      const { session, row } = this.find(sessionId, ref)
      // An edit without a trackingId is an edit of the message `ref` names.
      const edit = prepared.minted ? withTrackingId(prepared, row.uid) : prepared
      checkSameShape(sessionId, row, edit.message, 'An edit')
      const shown = this.windowBodyFor(session.pk, row, edit.message)
      if (row.window_body === shown) return toEntry(session, row)
      const now = Date.now()
      this.writeWindowBody(session, row, shown, edit.tokens)
      this.st.insertEdit.run(
        session.pk,
        row.seq,
        'edit',
        by.actor ?? 'user',
        by.reason ?? null,
        now,
        edit.body,
      )
      this.st.sessionTouch.run(now, session.pk)
      return toEntry(session, this.st.messageBySeq.get(session.pk, row.seq) as MessageRow)
    })
  }

  /**
   * Erases a message from the archive itself: its stored bytes — and those of every occurrence of it sent
   * again (`repeatOf`) — are replaced by `replacement` (default: the same role, trackingId and tool ids with
   * every content replaced by `[redacted]`), earlier edits' copies are erased too, and the edit log records
   * who redacted it and when, without the original. Freed space is zeroed (`secure_delete`), and the
   * write-ahead log is checkpointed and truncated so no old page image keeps the original. A checkpoint
   * cannot finish while another connection reads an older snapshot: then `erased` is false, and the store
   * finishes it at its next write, at {@link completeErasure} or at {@link close}. The token count
   * recorded on append is kept.
   *
   * @param sessionId - the session
   * @param ref - which message
   * @param options - who redacts (default `'user'`), why, and an optional replacement
   * @returns the message's entry after the redaction, and whether the original is already gone from the files
   * @throws ContextLedgerError `MESSAGE_NOT_FOUND`, `INVALID_MESSAGE` (a replacement that changes role,
   *   trackingId or tool ids), `INVALID_OPTIONS`, `READ_ONLY`
   */
  redactMessage(sessionId: string, ref: MessageRef, options: RedactOptions = {}): RedactResult {
    this.ensureWritable()
    checkSessionId(sessionId)
    checkMessageRef(ref)
    const { replacement, ...attribution } = checkRedactOptions(options)
    const by = checkAttribution(attribution)
    const given =
      replacement === undefined ? undefined : prepareMessage(replacement, -1, () => 0, this.limits)
    const entry = this.write(sessionId, () => {
      const { session, row } = this.find(sessionId, ref)
      const root = row.repeat_of ?? row.seq
      const family = [root, ...(this.st.repeatsOf.all(session.pk, root) as number[])]
      const now = Date.now()
      for (const seq of family) {
        const target = seq === row.seq ? row : (this.st.messageBySeq.get(session.pk, seq) as MessageRow)
        const next =
          given === undefined
            ? redactedForm(JSON.parse(target.body) as StoredMessageData)
            : withTrackingId(given, target.uid).message
        checkSameShape(sessionId, target, next, 'A redaction')
        this.replaceArchived(session, target, next, {
          actor: by.actor ?? 'user',
          reason: by.reason ?? null,
          at: now,
        })
      }
      this.st.sessionTouch.run(now, session.pk)
      return toEntry(session, this.st.messageBySeq.get(session.pk, row.seq) as MessageRow)
    })
    this.erasurePending = true
    return { ...entry, erased: this.completeErasure() }
  }

  /**
   * Finishes erasing what {@link redactMessage} replaced: checkpoints the write-ahead log into the file
   * and truncates it, without waiting for readers. Called by the store after each write and on close
   * while an erasure is pending.
   *
   * @returns true when no redacted original is left in the files (or none was pending)
   */
  completeErasure(): boolean {
    this.ensureOpen()
    if (!this.erasurePending || this.readonly) return !this.erasurePending
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number
    try {
      this.db.pragma('busy_timeout = 0')
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[]
      this.erasurePending = result?.busy !== 0
    } catch (error) {
      if (!isBusy(error)) throw toLedgerError(error, `checkpoint ${this.path} to erase redacted messages`)
    } finally {
      this.db.pragma(`busy_timeout = ${Number(timeout)}`)
    }
    return !this.erasurePending
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Deletes a session: every message, tool-call link, pin and edit-log entry and the session itself, in
   * one write transaction. Freed pages are zeroed (`secure_delete`) and the write-ahead log is checkpointed
   * and truncated, as after {@link redactMessage}, so no byte of the session lingers in the files; `erased`
   * says whether that is done already (see {@link completeErasure}). The session id can be used again
   * afterwards: it starts from scratch. Deleting a session that does not exist writes nothing and returns
   * `deleted: false` with zero counts.
   *
   * @param sessionId - the session
   * @returns what was deleted, and whether it is gone from the files
   * @throws ContextLedgerError `INVALID_OPTIONS`, `READ_ONLY`, `DATABASE_BUSY`, `STORAGE_ERROR`
   */
  deleteSession(sessionId: string): DeleteSessionResult {
    this.ensureWritable()
    checkSessionId(sessionId)
    const counts = this.write(sessionId, () => {
      const row = this.st.sessionById.get(sessionId) as SessionRow | undefined
      if (row === undefined) return undefined
      return this.lifecycle.deleteSessionRows(row.pk)
    })
    this.pks.delete(sessionId)
    if (counts !== undefined) this.erasurePending = true
    const deleted = counts ?? { messages: 0, toolCalls: 0, pinEvents: 0, edits: 0 }
    return { sessionId, deleted: counts !== undefined, ...deleted, erased: this.completeErasure() }
  }

  /**
   * Retention: erases the content of messages appended before `options.before` that are out of the
   * window — before the boundary, not kept, not pinned — in one session or in all. The rows stay (seqs stay
   * dense, token counts and prefix sums unchanged), each body replaced by its pruned form (see
   * `prunedForm`: role, trackingId and tool ids kept, `metadata.custom.contextLedger.pruned = true`);
   * edits' copies are erased, and the edit log records one `redact` entry per pruned message (actor
   * `'retention'` unless given). The window is unchanged. A message brought back into the window later (a
   * pin, a wider protected range) shows its pruned form. Each transaction prunes at most
   * {@link PRUNE_BATCH} messages of one session, so the lock is never held long; a failed call may have
   * committed earlier batches, and running it again finishes the rest (pruning is idempotent). The files
   * are then checkpointed as after {@link redactMessage}.
   *
   * @param options - `before` (Date or ms since the epoch), `keepPinned: true` (required), optional
   *   `sessionId`, `actor`, `reason`
   * @returns sessions examined, messages pruned, and whether the contents are gone from the files
   * @throws ContextLedgerError `INVALID_OPTIONS` naming the field (also for `keepPinned` other than true),
   *   `READ_ONLY`, `DATABASE_BUSY`, `STORAGE_ERROR`
   */
  prune(options: PruneOptions): PruneResult {
    this.ensureWritable()
    const { sessionId, before, actor, reason } = checkPruneOptions(options)
    const targets =
      sessionId === undefined
        ? this.read(() => this.lifecycle.sessionKeys(), 'list the sessions to prune').map((s) => s.id)
        : [sessionId]
    let pruned = 0
    for (const id of targets) {
      let from = 0
      for (;;) {
        const batch = this.write(id, () => {
          const session = this.st.sessionById.get(id) as SessionRow | undefined
          if (session === undefined) return { count: 0, next: undefined }
          const rows = this.lifecycle.pruneCandidates(session.pk, from, session.boundary, before)
          const now = Date.now()
          for (const row of rows)
            this.replaceArchived(session, row, prunedForm(JSON.parse(row.body) as StoredMessageData), {
              actor,
              reason,
              at: now,
            })
          const last = rows[rows.length - 1]
          return { count: rows.length, next: rows.length < PRUNE_BATCH ? undefined : (last?.seq ?? 0) + 1 }
        })
        pruned += batch.count
        if (batch.count > 0) this.erasurePending = true
        if (batch.next === undefined) break
        from = batch.next
      }
    }
    return { sessions: targets.length, pruned, erased: this.completeErasure() }
  }

  /**
   * Copies the ledger file, while it is in use, with SQLite's online backup API: the copy is one consistent
   * state including what the write-ahead log holds (copying the file itself misses that). It is written
   * beside the destination and renamed into place once complete. Works on a read-only store too.
   *
   * @param destination - the copy's path; must differ from the store's
   * @param options - `overwrite: true` to replace an existing file (and its -wal/-shm; it must not be open)
   * @returns the destination's absolute path and the pages copied
   * @throws ContextLedgerError `INVALID_OPTIONS` naming `destination` (also when it exists and `overwrite`
   *   is not true) or `options.overwrite`; `STORAGE_ERROR`, `STORAGE_FULL` when the copy cannot be written
   */
  async backup(destination: string, options: BackupOptions = {}): Promise<BackupResult> {
    this.ensureOpen()
    const target = checkBackupArgs(this.path, destination, options)
    return backupDatabase(this.db, this.path, target)
  }

  /**
   * The edit log of a session, oldest first: every edit and redaction with who, when and why.
   *
   * @param sessionId - the session
   * @returns the edits (empty for an unknown session)
   */
  edits(sessionId: string): MessageEdit[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    return this.read(() => {
      // sessionRow(), not the cached key alone: another connection may have deleted and recreated it.
      const pk = this.sessionRow(sessionId)?.pk
      if (pk === undefined) return []
      const rows = this.st.edits.all(pk) as {
        seq: number
        uid: string
        kind: 'edit' | 'redact'
        actor: string
        reason: string | null
        at: number
        body: string | null
      }[]
      return rows.map((r) => ({
        sessionId,
        seq: r.seq,
        trackingId: r.uid,
        kind: r.kind,
        actor: r.actor,
        reason: r.reason ?? undefined,
        at: new Date(r.at),
        message: r.body === null ? undefined : (JSON.parse(r.body) as StoredMessageData),
      }))
    })
  }

  /**
   * Shows `message` in the window for `row` (its archived form when they are equal).
   *
   * @see writeWindowBody
   */
  private showInWindow(
    session: SessionRow,
    row: MessageRow,
    message: StoredMessageData,
    tokens: number | undefined,
  ): void {
    this.writeWindowBody(session, row, this.windowBodyFor(session.pk, row, message), tokens)
  }

  /**
   * Writes the window form `body` of `row` (null: the archived form) with its tokens (`tokens`, or the
   * built-in estimate for a late result's text form), keeping the session's kept-token total in step.
   */
  private writeWindowBody(
    session: SessionRow,
    row: MessageRow,
    body: string | null,
    tokens: number | undefined,
  ): void {
    const windowTokens =
      body === null
        ? null
        : row.late === 1 || tokens === undefined
          ? estimateTokens(JSON.parse(body) as StoredMessageData)
          : tokens
    this.st.setWindowBody.run(body, windowTokens, session.pk, row.seq)
    const delta = (windowTokens ?? row.tokens) - (row.window_tokens ?? row.tokens)
    if (delta !== 0 && row.kept === 1 && row.seq < session.boundary)
      this.st.setKeptTokens.run(delta, session.pk)
  }

  /**
   * Replaces what the archive holds for `row` by `next` (a redaction or a pruning): the body, the window
   * form derived from it, the copies earlier edits kept, and one `redact` row in the edit log.
   */
  private replaceArchived(
    session: SessionRow,
    row: MessageRow,
    next: StoredMessageData,
    by: { actor: string; reason: string | null; at: number },
  ): void {
    const body = JSON.stringify(next)
    this.st.setBody.run(body, session.pk, row.seq)
    // A late result's window form quotes the result: it is rebuilt from the new body.
    this.showInWindow(session, { ...row, body }, next, undefined)
    this.st.eraseEditBodies.run(session.pk, row.seq)
    this.st.insertEdit.run(session.pk, row.seq, 'redact', by.actor, by.reason, by.at, null)
  }

  /**
   * What the window shows for `row` when its content becomes `message`: in a row holding late tool
   * results, each result no call links to this row stays a text block (see late-tool-results.ts); null
   * when that is `message` as archived.
   */
  private windowBodyFor(pk: number, row: MessageRow, message: StoredMessageData): string | null {
    let shown = message
    if (row.late === 1) {
      const linked = new Set(this.st.idsAnsweredBy.all(pk, row.seq) as string[])
      const late: LateResult[] = []
      message.content.forEach((block, i) => {
        if (!('toolResult' in block) || linked.has(block.toolResult.toolUseId)) return
        const id = block.toolResult.toolUseId
        late.push({ block: i, id, name: (this.st.madeCall.get(pk, id) as string | undefined) ?? 'unknown' })
      })
      shown = lateResultsWindowForm(message, late)
    }
    const body = JSON.stringify(shown)
    return body === row.body ? null : body
  }

  // ---------------------------------------------------------------- reads

  /**
   * The messages the model should see, in order. Pinned messages carry `metadata.custom.pinned = true`.
   *
   * @param sessionId - the session
   * @param options - `alternate: true` merges runs of same-role messages so that roles strictly alternate
   *   (for providers such as Bedrock Converse); the archive is unchanged
   * @returns the window (empty for an unknown session)
   */
  window(sessionId: string, options: WindowReadOptions = {}): StoredMessageData[] {
    const alternate = checkWindowReadOptions(options)
    this.ensureOpen()
    checkSessionId(sessionId)
    // One statement, so no read transaction: the session lookup and the decoding are mapped here.
    try {
      const pk = this.pk(sessionId)
      if (pk === undefined) return []
      let rows = this.st.window.all({ s: pk }) as { body: string; pinned: number }[]
      if (rows.length === 0) {
        // The cached key may name a session another connection deleted (and perhaps created again).
        const fresh = this.recheckPk(sessionId, pk)
        if (fresh === undefined) return []
        rows = this.st.window.all({ s: fresh }) as { body: string; pinned: number }[]
      }
      const out = new Array<StoredMessageData>(rows.length)
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as { body: string; pinned: number }
        const message = JSON.parse(row.body) as StoredMessageData
        out[i] = row.pinned === 1 || hasPinFlag(message) ? withPinFlag(message, row.pinned === 1) : message
      }
      return alternate ? alternateRoles(out) : out
    } catch (error) {
      throw toReadError(error, `read the window of session "${sessionId}"`, sessionId)
    }
  }

  /**
   * The archive, evicted messages included, in seq order.
   *
   * @param sessionId - the session
   * @param options - `fromSeq` (default 0) and `limit` (default 100)
   * @returns entries, oldest first
   */
  history(sessionId: string, options?: HistoryOptions): LedgerEntry[] {
    this.ensureOpen()
    checkSessionId(sessionId)
    const { fromSeq, limit } = checkHistoryOptions(options)
    return this.read(
      () => {
        const session = this.sessionRow(sessionId)
        if (session === undefined) return []
        const rows = this.st.history.all(session.pk, fromSeq, limit) as MessageRow[]
        return rows.map((r) => toEntry(session, r))
      },
      `read the history of session "${sessionId}"`,
      sessionId,
    )
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
    checkMessageRef(ref)
    return this.read(
      () => {
        const { session, row } = this.find(sessionId, ref)
        return toEntry(session, row)
      },
      `read a message of session "${sessionId}"`,
      sessionId,
    )
  }

  /**
   * Every session in the file with its sizes.
   *
   * @returns sessions ordered by id
   */
  sessions(): SessionSummary[] {
    this.ensureOpen()
    return this.read(
      () => (this.st.allSessions.all() as SessionRow[]).map((s) => this.summarize(s)),
      'list the sessions',
    )
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
    return this.read(
      () => {
        const row = this.sessionRow(sessionId)
        return row === undefined ? undefined : this.summarize(row)
      },
      `read session "${sessionId}"`,
      sessionId,
    )
  }

  /**
   * Pinned messages with when, who and why they were pinned.
   *
   * @param options - `sessionId` to restrict to one session; all sessions when omitted
   * @returns pinned messages ordered by session and seq
   */
  pinnedMessages(options?: PinnedMessagesOptions): PinnedMessage[] {
    this.ensureOpen()
    const sessionId = checkPinnedMessagesOptions(options)
    return this.read(
      () => {
        let rows: unknown[]
        if (sessionId === undefined) rows = this.st.allPinnedMessages.all()
        else {
          const pk = this.sessionRow(sessionId)?.pk
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
      },
      'read the pinned messages',
      sessionId,
    )
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
    return this.read(() => this.pinLog(sessionId), `read the pin log of session "${sessionId}"`, sessionId)
  }

  // ---------------------------------------------------------------- internals

  private pinLog(sessionId: string): PinEvent[] {
    const pk = this.sessionRow(sessionId)?.pk
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

  private ensureOpen(): void {
    if (!this.db.open) throw new ContextLedgerError('STORE_CLOSED', `The store for ${this.path} is closed`)
  }

  private ensureWritable(): void {
    this.ensureOpen()
    if (this.readonly)
      throw new ContextLedgerError(
        'READ_ONLY',
        `The store for ${this.path} was opened with readonly: true; it cannot be written`,
      )
  }

  private pk(sessionId: string): number | undefined {
    const cached = this.pks.get(sessionId)
    if (cached !== undefined) return cached
    const row = this.st.sessionById.get(sessionId) as SessionRow | undefined
    if (row !== undefined) this.pks.set(sessionId, row.pk)
    return row?.pk
  }

  /**
   * Looks a session's key up again after a read with the cached `pk` found nothing: another connection may
   * have deleted the session, and created it again under a new key.
   *
   * @returns the new key, or undefined when it is the same or the session is gone
   */
  private recheckPk(sessionId: string, pk: number): number | undefined {
    this.pks.delete(sessionId)
    const fresh = this.pk(sessionId)
    return fresh === pk ? undefined : fresh
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
    const keptCount = this.keptTotals(session).count
    if (i < keptCount) return this.st.keptAt.get(session.pk, i) as number
    const seq = session.boundary + i - keptCount
    return seq < session.message_count ? seq : undefined
  }

  /** The kept rows' count and window tokens: the session's totals, counted for a session from before them. */
  private keptTotals(s: SessionRow): { count: number; tokens: number } {
    if (s.kept_count !== null && s.kept_tokens !== null) return { count: s.kept_count, tokens: s.kept_tokens }
    return this.st.keptTotals.get(s.pk) as { count: number; tokens: number }
  }

  private summarize(s: SessionRow): SessionSummary {
    const kept = this.keptTotals(s)
    const before = s.boundary > 0 ? ((this.st.cumAt.get(s.pk, s.boundary - 1) as number | undefined) ?? 0) : 0
    // The tail's tokens as the window shows them: the prefix-sum difference, corrected for replacements.
    const correction = this.st.tailCorrection.get(s.pk, s.boundary) as number
    return {
      id: s.id,
      messageCount: s.message_count,
      windowMessages: kept.count + s.message_count - s.boundary,
      windowTokens: kept.tokens + s.total_tokens - before + correction,
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
    const insert = (
      m: PreparedMessage,
      next: MessageClass | undefined,
      index: number,
      repeatOf: number | null,
    ): { seq: number; shown: StoredMessageData | undefined } => {
      const seq = n
      // Every result answers a call. A call the session never made is refused; one that is no longer
      // waiting (a repair row or an earlier result answered it) makes this a late result: archived as
      // sent, shown in the window as text (see late-tool-results.ts).
      const late: LateResult[] = []
      for (const r of m.toolResults) {
        if (this.st.answerToolCall.run(seq, r.status, pk, r.id).changes > 0) continue
        const name = this.st.madeCall.get(pk, r.id) as string | undefined
        if (name === undefined) {
          const path = `${batch ? `[${index}].` : ''}content[${r.block}].toolResult.toolUseId`
          throw new ContextLedgerError(
            'INVALID_MESSAGE',
            `Invalid message at ${path}: session "${sessionId}" never made a tool call "${r.id}"`,
            { path, sessionId },
          )
        }
        late.push({ block: r.block, id: r.id, name })
      }
      // From the validated body: the caller's token counter has seen `m.message` since.
      const shown =
        late.length > 0 ? lateResultsWindowForm(JSON.parse(m.body) as StoredMessageData, late) : undefined
      // Classified as archived: a late result never opens a window (it is no one's prompt), so the newest
      // turn keeps its real prompt; its text form follows the message before it like any result would.
      const c = m.cls
      total += m.tokens
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
        shown === undefined ? null : JSON.stringify(shown),
        shown === undefined ? null : estimateTokens(shown),
        repeatOf,
        late.length > 0 ? 1 : 0,
      )
      if (prev !== undefined) {
        const prevTrim = isTrimPoint(prev.cls, c)
        const prevPair = isToolPairStart(prev.cls, c)
        if (prevTrim !== prev.trim || prevPair !== prev.pair)
          this.st.setCutFlags.run(prevTrim ? 1 : 0, prevPair ? 1 : 0, pk, prev.seq)
      }
      for (const u of m.toolUses) {
        if (this.st.openCallById.get(pk, u.id) !== undefined) {
          const path = `${batch ? `[${index}].` : ''}content[${u.block}].toolUse.toolUseId`
          throw new ContextLedgerError(
            'INVALID_MESSAGE',
            `Invalid message at ${path}: a call with this toolUseId is still waiting for its result in session "${sessionId}"; every open call needs its own id`,
            { path, sessionId },
          )
        }
        this.st.insertToolCall.run(pk, u.id, u.name, seq)
      }
      if (m.pinned) this.st.insertPinEvent.run(pk, seq, 'pin', 'append', 'metadata.custom.pinned', now)
      prev = { seq, cls: c, trim, pair, inBatch: true }
      n++
      return { seq, shown }
    }
    const entries: LedgerEntry[] = []
    const entryOf = (
      m: PreparedMessage,
      at: { seq: number; shown: StoredMessageData | undefined },
      repeatOf: number | null,
    ): LedgerEntry => ({
      sessionId,
      seq: at.seq,
      trackingId: m.message.trackingId,
      message: m.message,
      tokens: m.tokens,
      pinned: m.pinned,
      inWindow: true,
      createdAt: new Date(now),
      windowMessage: at.shown,
      repeatOf: repeatOf ?? undefined,
      late: at.shown !== undefined,
    })
    // A retry starts with a message the session holds; the common case (a new message) costs no more than
    // the trackingId lookup every caller-named message gets anyway.
    const byUid = (m: PreparedMessage): MessageRow | undefined =>
      m.minted ? undefined : (this.st.messageByUid.get(pk, m.message.trackingId) as MessageRow | undefined)
    const firstRow = known === undefined ? undefined : byUid(prepared[0] as PreparedMessage)
    const retried =
      firstRow === undefined ? { count: 0, entries: [], newest: undefined } : this.retriedPrefix(pk, prepared)
    for (let i = 0; i < prepared.length; i++) {
      let m = prepared[i] as PreparedMessage
      const retry = retried.entries[i]
      if (retry !== undefined) {
        entries.push(toEntry({ ...session, message_count: n }, retry))
        continue
      }
      let repeatOf: number | null = null
      const existing = i === 0 && known !== undefined ? firstRow : byUid(m)
      if (existing !== undefined) {
        // The first new message of the batch under the trackingId of the session's newest message, with
        // other content: not a retry, not a copy sent again — a conflicting message.
        if (i === retried.count && existing.seq === retried.newest)
          throw new ContextLedgerError(
            'DUPLICATE_MESSAGE',
            `Session "${sessionId}" already holds a different message with trackingId ${m.message.trackingId} as its newest message (seq ${existing.seq})`,
            { sessionId },
          )
        // A copy of an earlier message sent again: a new occurrence with a new trackingId, recording
        // which message it repeats.
        repeatOf = existing.repeat_of ?? existing.seq
        m = withTrackingId(m, randomUUID())
      }
      let repair: LedgerEntry | undefined
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
          repair = entryOf(row, insert(row, m.cls, i, null), null)
        }
      }
      const at = insert(m, prepared[i + 1]?.cls, i, repeatOf)
      const entry = entryOf(m, at, repeatOf)
      entries.push(repair === undefined ? entry : { ...entry, repair })
    }
    return entries
  }

  /**
   * How much of a batch is a retry: the longest prefix of it that is already the session's newest
   * messages, in order, with the same role and content (a message sent again counts under the trackingId
   * it was sent with). Repair rows the store wrote are skipped. Decided once, before the batch writes
   * anything, from at most twice the batch's length of rows.
   */
  private retriedPrefix(
    pk: number,
    prepared: readonly PreparedMessage[],
  ): { count: number; entries: (MessageRow | undefined)[]; newest: number | undefined } {
    const rows = (
      this.st.newestRows.all(pk, 2 * prepared.length + 1) as (MessageRow & { sent_as: string | null })[]
    ).filter((r) => !isRepairRow(r.body))
    const newest = rows[0]?.seq
    const matches = (m: PreparedMessage, r: MessageRow & { sent_as: string | null }): boolean =>
      !m.minted &&
      (r.uid === m.message.trackingId || r.sent_as === m.message.trackingId) &&
      contentKey(JSON.parse(r.body) as StoredMessageData) === contentKey(m.message)
    for (let j = Math.min(prepared.length, rows.length); j > 0; j--) {
      // batch[0..j) against the j newest rows, oldest of them first.
      let all = true
      for (let i = 0; all && i < j; i++)
        all = matches(
          prepared[i] as PreparedMessage,
          rows[j - 1 - i] as MessageRow & { sent_as: string | null },
        )
      if (all)
        return { count: j, entries: prepared.map((_, i) => (i < j ? rows[j - 1 - i] : undefined)), newest }
    }
    return { count: 0, entries: [], newest }
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

  /**
   * Runs `fn` in a read transaction, so multi-statement reads see one snapshot. Every failure, of SQLite
   * or of decoding a stored row, becomes a typed error naming `what`.
   */
  private read<T>(fn: () => T, what = `read ${this.path}`, sessionId?: string): T {
    try {
      return this.transactions.read(fn)
    } catch (error) {
      throw toReadError(error, what, sessionId)
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
    repeatOf: row.repeat_of ?? undefined,
    late: row.late === 1,
  }
}

/** The same prepared message under another trackingId (a new occurrence of a re-sent message). */
function withTrackingId(m: PreparedMessage, trackingId: string): PreparedMessage {
  // From the validated body, not `m.message`: the caller's token counter has seen that object since.
  const message = { ...(JSON.parse(m.body) as StoredMessageData), trackingId }
  return { ...m, message, body: JSON.stringify(message), minted: true }
}

/** Whether a stored body is a repair row the store wrote (see interrupted-tool-results.ts). */
function isRepairRow(body: string): boolean {
  if (!body.includes(MISSING_TOOL_RESULT_REPAIR)) return false
  const custom = (JSON.parse(body) as StoredMessageData).metadata?.custom
  const marker = (custom?.contextLedger as { repair?: unknown } | undefined)?.repair
  return marker === MISSING_TOOL_RESULT_REPAIR
}

/** Refuses a new form that would change what ties the message to the session: role, id, tool ids. */
function checkSameShape(sessionId: string, row: MessageRow, next: StoredMessageData, what: string): void {
  const ids = (m: StoredMessageData): string => {
    const c = classifyMessage(m)
    return JSON.stringify([m.role, m.trackingId, c.toolUseIds, c.toolResultIds])
  }
  if (ids(JSON.parse(row.body) as StoredMessageData) !== ids(next))
    throw new ContextLedgerError(
      'INVALID_MESSAGE',
      `${what} of seq ${row.seq} must keep the role, trackingId and tool ids of the original`,
      { sessionId, path: '(message)' },
    )
}

function notFound(sessionId: string, ref: MessageRef): ContextLedgerError<'MESSAGE_NOT_FOUND'> {
  return new ContextLedgerError(
    'MESSAGE_NOT_FOUND',
    `No message ${JSON.stringify(ref)} in session "${sessionId}"`,
    { sessionId },
  )
}

/**
 * Opens a ledger file, creating and migrating it as needed.
 *
 * @param path - a file path, or `':memory:'` for a throwaway store
 * @param options - busy timeout, durability, validation limits, `readonly`, `mustExist`
 * @returns the store
 * @throws ContextLedgerError `INVALID_OPTIONS` naming a bad option; `NOT_A_LEDGER`, `CORRUPT_DATABASE` or
 *   `SCHEMA_TOO_NEW` (the file is left untouched); `FILE_NOT_FOUND` for a missing file with `mustExist` or
 *   `readonly`; `SCHEMA_TOO_OLD` for a file that needs migrating opened `readonly`; `READ_ONLY` when the
 *   file cannot be opened even to read because its directory is not writable
 *
 * @example
 * ```ts
 * const store = openContextStore('agent.db')
 * ```
 */
export function openContextStore(path: string, options: ContextStoreOptions = {}): ContextStore {
  return new ContextStore(path, options)
}

export { checkSessionId } from './check-args.js'
