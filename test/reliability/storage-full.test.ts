/**
 * A full disk, simulated with SQLite's `max_page_count` (SQLite reports it exactly as it reports a full
 * disk: SQLITE_FULL). An append that does not fit fails with `STORAGE_FULL`, leaves no partial turn, and
 * the store keeps serving reads; once space is back, appends work again and every rule holds. A fold whose
 * summary does not fit is not written either.
 */
import { describe, expect, it } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
} from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { ledgerChecksum } from './db-checksum.js'
import { MessageFactory } from './workers/worker-kit.js'
import { refusal } from '../helpers/refusal.js'

const dir = useTempDir('context-ledger-rel-')
const LIMITS = { windowSize: 6, protectedMessages: { first: 1 } }

/** Caps the file at its current size plus `spare` pages. */
function fill(store: ContextStore, spare: number): void {
  const db = store.connection()
  const pages = db.pragma('page_count', { simple: true }) as number
  // eslint-disable-next-line no-restricted-syntax -- a fixture: an integer page cap computed by the test
  db.pragma(`max_page_count = ${pages + spare}`)
}

function bigTurn(f: MessageFactory, chars: number): MessageData[] {
  const { message, ids } = f.toolUse(2)
  return [f.user('fetch the report'), message, f.toolResult(ids, chars), f.reply('done')]
}

describe('a full disk', () => {
  it('fails an append that does not fit with STORAGE_FULL, writing none of the turn', () => {
    const store = openContextStore(dir.file('full.db'))
    const manager = new PersistentConversationManager({ store, sessionId: 's', ...LIMITS })
    const f = new MessageFactory('full')
    const appended = new Map<string, string>()
    const remember = (ms: MessageData[]): void => {
      for (const m of ms) appended.set(m.trackingId as string, JSON.stringify(m))
    }
    for (let i = 0; i < 10; i++) {
      const turn = bigTurn(f, 500)
      manager.append(turn)
      remember(turn)
      manager.applyWindow()
    }
    manager.pin({ seq: 5 }, { reason: 'keep' })
    const windowBefore = JSON.stringify(manager.window())
    fill(store, 2)
    const before = ledgerChecksum(store.connection())

    // A turn whose tool result needs far more than two pages: refused whole, nothing of it written.
    const error = refusal(() => manager.append(bigTurn(f, 64 * 1024)))
    expect(error.code).toBe('STORAGE_FULL')
    expect(error.sessionId).toBe('s')
    expect(error.message).toMatch(/full/)
    expect(error.cause).toMatchObject({ code: 'SQLITE_FULL' })
    expect(ledgerChecksum(store.connection())).toBe(before)
    expect(store.connection().inTransaction).toBe(false)

    // Reads still work, and see exactly what was there.
    expect(JSON.stringify(manager.window())).toBe(windowBefore)
    expect(store.session('s')?.messageCount).toBe(40)
    expect(manager.history({ limit: 1000 })).toHaveLength(40)
    expect(store.pinnedMessages({ sessionId: 's' }).map((p) => p.seq)).toStrictEqual([5])
    assertWindowRules(store, 's', LIMITS.protectedMessages, { appended })

    // A new session does not fit either, and is not half-created.
    expect(refusal(() => store.append('other', bigTurn(f, 64 * 1024))).code).toBe('STORAGE_FULL')
    expect(store.session('other')).toBeUndefined()
    expect(ledgerChecksum(store.connection())).toBe(before)

    // Space is back: the same kind of turn goes in, and the window moves on.
    store.connection().pragma('max_page_count = 1073741823')
    const turn = bigTurn(f, 64 * 1024)
    const entries = manager.append(turn)
    remember(turn)
    expect(entries.map((e) => e.seq)).toStrictEqual([40, 41, 42, 43])
    expect(manager.applyWindow().evicted).toBeGreaterThan(0)
    assertWindowRules(store, 's', LIMITS.protectedMessages, { appended })
    expect(store.connection().pragma('integrity_check', { simple: true })).toBe('ok')
    store.close()

    // And the file reopens with all of it.
    const reopened = openContextStore(dir.file('full.db'))
    assertWindowRules(reopened, 's', LIMITS.protectedMessages, { appended })
    reopened.close()
  })

  it('keeps a pin atomic when its log row does not fit, while in-place window updates still work', () => {
    const store = openContextStore(dir.file('full2.db'))
    const manager = new PersistentConversationManager({ store, sessionId: 's', ...LIMITS })
    const f = new MessageFactory('pins')
    for (let i = 0; i < 40; i++) manager.append(bigTurn(f, 2000))
    fill(store, 0)

    // Each pin flag fits in its page; pins with the longest actor and reason (256 characters each) fill
    // what the pin log's pages have left, until one's log row does not fit: neither it nor its flag is
    // written.
    const attribution = { actor: 'a'.repeat(256), reason: 'x'.repeat(256) }
    let refused: { seq: number; error: ReturnType<typeof refusal> } | undefined
    for (let seq = 3; seq < 160 && refused === undefined; seq++) {
      const before = ledgerChecksum(store.connection())
      const events = store.pinEvents('s').length
      try {
        manager.pin({ seq }, attribution)
      } catch {
        refused = { seq, error: refusal(() => manager.pin({ seq }, attribution)) }
        expect(store.pinEvents('s')).toHaveLength(events)
        expect(ledgerChecksum(store.connection())).toBe(before)
      }
    }
    expect(refused?.error.code).toBe('STORAGE_FULL')
    expect(manager.message({ seq: refused?.seq ?? -1 }).pinned).toBe(false)

    // Moving the boundary rewrites existing pages only: it still works on a full disk.
    expect(manager.applyWindow().evicted).toBeGreaterThan(0)
    assertWindowRules(store, 's', LIMITS.protectedMessages)
    expect(refusal(() => manager.append(f.user('x'.repeat(20_000)))).code).toBe('STORAGE_FULL')
    store.close()
  })

  it('fails a fold whose summary does not fit with STORAGE_FULL, changing nothing', async () => {
    const store = openContextStore(dir.file('full3.db'))
    const manager = new PersistentConversationManager({ store, sessionId: 's', ...LIMITS })
    const f = new MessageFactory('folds')
    for (let i = 0; i < 10; i++) manager.append(bigTurn(f, 500))
    await manager.summarize(() => 'a first summary', { preserveRecentMessages: 4 })
    fill(store, 1)
    const before = ledgerChecksum(store.connection())
    const window = JSON.stringify(manager.window())
    let calls = 0
    const big = (): string => {
      calls++
      return 'x'.repeat(64 * 1024)
    }
    for (const fold of [
      () => manager.summarize(big, { preserveRecentMessages: 4 }),
      () => manager.summarizeExcess(big),
      () => manager.resummarize(manager.summaries()[0]?.id ?? 0, big),
    ])
      await expect(fold()).rejects.toMatchObject({ code: 'STORAGE_FULL', sessionId: 's' })
    expect(calls).toBe(3)
    expect(ledgerChecksum(store.connection())).toBe(before)
    expect(JSON.stringify(manager.window())).toBe(window)
    expect(store.connection().inTransaction).toBe(false)
    assertWindowRules(store, 's', LIMITS.protectedMessages)

    // Space is back: the fold goes in.
    store.connection().pragma('max_page_count = 1073741823')
    expect((await manager.summarizeExcess(big)).summary).toBeDefined()
    assertWindowRules(store, 's', LIMITS.protectedMessages)
    store.close()
  })
})
