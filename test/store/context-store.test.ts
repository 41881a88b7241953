import { writeFileSync, readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  openContextStore,
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
} from '../../src/index.js'
import { WAL_CHECKPOINT_BYTES } from '../../src/db/open.js'
import { everyBlockMessage, everyToolResultMessage } from '../helpers/all-blocks.js'
import { refusal } from '../helpers/refusal.js'
import { tempDir, tempStore } from '../helpers/temp-store.js'
import { assistant, user } from '../helpers/messages.js'

let store: ContextStore
let path: string
let cleanup: () => void
beforeEach(() => {
  ;({ store, path, cleanup } = tempStore())
})
afterEach(() => {
  cleanup()
})

function codeOf(fn: () => unknown): string {
  return refusal(fn).code
}

describe('ContextStore', () => {
  describe('append', () => {
    it('round-trips every block kind byte-identically', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const ask = { ...user('show me everything'), trackingId: 'ask' }
      const entries = m.append([ask, everyBlockMessage, everyToolResultMessage])
      const expected = [ask, everyBlockMessage, everyToolResultMessage].map((x) => JSON.stringify(x))
      expect(entries.map((e) => JSON.stringify(e.message))).toStrictEqual(expected)
      const history = m.history()
      expect(history.map((e) => JSON.stringify(e.message))).toStrictEqual(expected)
      expect(JSON.stringify(m.message({ trackingId: everyBlockMessage.trackingId }).message)).toBe(
        JSON.stringify(everyBlockMessage),
      )
      expect(m.window().map((x) => JSON.stringify(x))).toStrictEqual(
        history.map((e) => JSON.stringify(e.message)),
      )
    })

    it('mints a time-ordered UUID v7 trackingId when absent, keeping the input byte-identical otherwise', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const input: MessageData = { role: 'user', content: [{ text: 'hi' }], metadata: { custom: { a: 1 } } }
      const entry = m.append(input)
      expect(entry.trackingId).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
      expect(input.trackingId).toBeUndefined()
      expect(JSON.stringify(entry.message)).toBe(JSON.stringify({ ...input, trackingId: entry.trackingId }))
      expect(JSON.stringify(m.history()[0]?.message)).toBe(
        JSON.stringify({ ...input, trackingId: entry.trackingId }),
      )
    })

    it('mints trackingIds that sort in the order of their messages, so the trackingId index grows at its end', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const batch = Array.from({ length: 50 }, (_, i) => (i % 2 ? assistant(`m${i}`) : user(`m${i}`)))
      const ids = m.append(batch).map((e) => e.trackingId)
      expect(ids).toStrictEqual([...ids].sort())
      expect(new Set(ids).size).toBe(50)
    })

    it('is a no-op for a retried message with the same trackingId and content', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const first = m.append({ ...user('hello'), trackingId: 't-1' })
      const again = m.append({ ...user('hello'), trackingId: 't-1', metadata: { custom: { retry: true } } })
      expect(again.seq).toBe(first.seq)
      expect(m.history()).toHaveLength(1)
      expect(store.session('s')?.messageCount).toBe(1)
    })

    it('refuses a different message under the trackingId of the newest message, and appends none of its batch', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append({ ...user('hello'), trackingId: 't-1' })
      const error = refusal(() => m.append([{ ...user('changed'), trackingId: 't-1' }, assistant('fresh')]))
      expect(error.code).toBe('DUPLICATE_MESSAGE')
      expect(error.message).toContain('t-1')
      expect(m.history().map((e) => e.trackingId)).toStrictEqual(['t-1'])
    })

    it('refuses an invalid message naming the bad field, and appends none of the batch', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const bad = {
        role: 'assistant',
        content: [{ text: 'ok' }, { toolUse: { name: 'x', toolUseId: 5, input: {} } }],
      } as unknown as MessageData
      const inBatch = refusal(() => m.append([user('first'), bad]))
      expect(inBatch.code).toBe('INVALID_MESSAGE')
      expect(inBatch.path).toBe('[1].content[1].toolUse.toolUseId')
      expect(refusal(() => m.append([bad])).path).toBe('[0].content[1].toolUse.toolUseId')
      expect(refusal(() => m.append(bad)).path).toBe('content[1].toolUse.toolUseId')
      // A batch element that is no message at all is named by its index alone.
      const notAMessage = refusal(() => m.append([user('first'), 42 as never]))
      expect([notAMessage.code, notAMessage.path]).toStrictEqual(['INVALID_MESSAGE', '[1]'])
      expect(notAMessage.message).toMatch(/^Message 1 of the batch: /)
      expect(m.history()).toStrictEqual([])
    })

    it('refuses a tool result for a call the session never made, naming it, and appends none of the batch', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      const call: MessageData = {
        role: 'assistant',
        content: [{ toolUse: { name: 'f', toolUseId: 'c1', input: {} } }],
      }
      const result = (id: string): MessageData => ({
        role: 'user',
        content: [{ text: 'here' }, { toolResult: { toolUseId: id, status: 'success', content: [] } }],
      })
      m.append([user('go'), call])
      const error = refusal(() => m.append([result('c1'), assistant('ok'), result('never-called')]))
      expect(error.code).toBe('INVALID_MESSAGE')
      expect(error.path).toBe('[2].content[1].toolResult.toolUseId')
      expect(error.message).toContain('never-called')
      expect(m.history()).toHaveLength(2)
      // The call stays open; its one real answer is accepted.
      m.append(result('c1'))
      expect(codeOf(() => m.append(result('never-called')))).toBe('INVALID_MESSAGE')
      expect(m.history()).toHaveLength(3)
    })

    it('keeps sessions apart after a failed first append (no stale key from the rolled-back session)', () => {
      const orphan: MessageData = {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'nope', status: 'success', content: [] } }],
      }
      expect(codeOf(() => store.append('A', [orphan]))).toBe('INVALID_MESSAGE')
      store.append('B', user('secret of B'))
      expect(store.window('A')).toStrictEqual([])
      store.append('A', user('hello A'))
      expect(store.window('A').map((m) => (m.content[0] as { text: string }).text)).toStrictEqual(['hello A'])
      expect(store.window('B').map((m) => (m.content[0] as { text: string }).text)).toStrictEqual([
        'secret of B',
      ])
      expect(store.sessions().map((x) => [x.id, x.messageCount])).toStrictEqual([
        ['A', 1],
        ['B', 1],
      ])
    })

    it('records tokens from the configured counter and refuses a counter that returns garbage', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', tokenCounter: () => 42 })
      expect(m.append(user('x')).tokens).toBe(42)
      const bad = new PersistentConversationManager({ store, sessionId: 's', tokenCounter: () => -1 })
      expect(codeOf(() => bad.append(user('y')))).toBe('INVALID_TOKEN_COUNT')
      expect(m.history()).toHaveLength(1)
    })
  })

  describe('persistence', () => {
    it('gives back the same window, pins and boundary after reopening the file', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
      for (let i = 0; i < 10; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
      m.pin({ seq: 2 }, { reason: 'key fact', actor: 'agent' })
      m.applyWindow()
      const before = { window: m.window(), session: store.session('s'), pins: store.pinnedMessages() }
      store.close()
      const reopened = openContextStore(path)
      const again = new PersistentConversationManager({ store: reopened, sessionId: 's', windowSize: 4 })
      expect(again.window()).toStrictEqual(before.window)
      expect(reopened.session('s')).toStrictEqual(before.session)
      expect(reopened.pinnedMessages()).toStrictEqual(before.pins)
      reopened.close()
      store = openContextStore(path)
    })
  })

  describe('pin', () => {
    it('brings an evicted message back with its tool partner, and lets it go after unpin', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 5 })
      m.append([
        user('plan'),
        { role: 'assistant', content: [{ toolUse: { name: 'f', toolUseId: 'c1', input: {} } }] },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'c1', status: 'success', content: [{ text: 'r' }] } }],
        },
        assistant('done'),
      ])
      for (let i = 0; i < 4; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
      m.applyWindow()
      expect(m.history({ limit: 3 }).map((e) => e.inWindow)).toStrictEqual([false, false, false])
      const pinned = m.pin({ seq: 2 }, { actor: 'agent', reason: 'the result matters' })
      expect(pinned).toStrictEqual({
        seq: 2,
        trackingId: m.history()[2]?.trackingId,
        changed: true,
        restored: 3,
      })
      // The result, its toolUse, and the plain user message before them (a window opens with a user).
      expect(m.history({ limit: 4 }).map((e) => e.inWindow)).toStrictEqual([true, true, true, false])
      expect(m.window()[2]?.metadata?.custom?.pinned).toBe(true)
      const applied = m.applyWindow()
      expect(applied.windowMessages).toBe(5)
      expect(m.window().length).toBe(5)
      expect(m.window().map((x) => x.trackingId)).toContain(m.history()[2]?.trackingId)
      m.unpin({ seq: 2 }, { actor: 'user', reason: 'done with it' })
      m.append([user('more'), assistant('more')])
      m.applyWindow()
      expect(m.window().map((x) => x.trackingId)).not.toContain(m.history()[2]?.trackingId)
      expect(store.pinEvents('s').map((e) => [e.action, e.actor, e.reason])).toStrictEqual([
        ['pin', 'agent', 'the result matters'],
        ['unpin', 'user', 'done with it'],
      ])
    })

    it('pins by window index, stores the Strands flag on the way in, and reports who pinned what', () => {
      const m = new PersistentConversationManager({ store, sessionId: 's' })
      m.append([user('a'), { ...assistant('b'), metadata: { custom: { pinned: true } } }, user('c')])
      m.pin({ windowIndex: 2 }, { actor: 'user', reason: 'question' })
      const pins = store.pinnedMessages({ sessionId: 's' })
      expect(pins.map((p) => [p.seq, p.actor, p.reason, p.inWindow])).toStrictEqual([
        [1, 'append', 'metadata.custom.pinned', true],
        [2, 'user', 'question', true],
      ])
      expect(pins[1]?.message.metadata).toStrictEqual({ custom: { pinned: true } })
      expect(pins[1]?.pinnedAt).toBeInstanceOf(Date)
      expect(store.pinnedMessages({ sessionId: 'other' })).toStrictEqual([])
      expect(codeOf(() => m.pin({ windowIndex: 3 }))).toBe('MESSAGE_NOT_FOUND')
      expect(codeOf(() => m.pin({ trackingId: 'nope' }))).toBe('MESSAGE_NOT_FOUND')
      expect(m.pin({ seq: 1 }).changed).toBe(false)
      m.unpin({ seq: 1 })
      expect(m.window()[1]?.metadata).toBeUndefined()
    })
  })

  describe('sessions', () => {
    it('lists ids with message counts, window sizes and pins; sessions do not touch each other', () => {
      const a = new PersistentConversationManager({
        store,
        sessionId: 'a',
        windowSize: 2,
        tokenCounter: () => 10,
      })
      const b = new PersistentConversationManager({ store, sessionId: 'b', tokenCounter: () => 1 })
      a.append([user('1'), assistant('2'), user('3'), assistant('4')])
      b.append([user('x')])
      a.applyWindow()
      b.pin({ seq: 0 })
      const [sa, sb] = store.sessions()
      expect([sa?.id, sa?.messageCount, sa?.windowMessages, sa?.windowTokens, sa?.totalTokens]).toStrictEqual(
        ['a', 4, 2, 20, 40],
      )
      expect([sb?.id, sb?.messageCount, sb?.windowMessages, sb?.pinnedCount]).toStrictEqual(['b', 1, 1, 1])
      expect(b.window()).toHaveLength(1)
    })
  })

  describe('openContextStore', () => {
    it('refuses a file that is not SQLite, without modifying it', () => {
      const dir = tempDir()
      const file = dir.file('junk.db')
      writeFileSync(file, Buffer.alloc(8192, 7))
      expect(codeOf(() => openContextStore(file))).toBe('NOT_A_LEDGER')
      expect(readFileSync(file).equals(Buffer.alloc(8192, 7))).toBe(true)
      dir.cleanup()
    })

    it("refuses another application's SQLite database and a ledger from a newer schema", () => {
      const dir = tempDir()
      const foreign = dir.file('foreign.db')
      const db = new Database(foreign)
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)')
      db.close()
      const bytes = readFileSync(foreign)
      expect(codeOf(() => openContextStore(foreign))).toBe('NOT_A_LEDGER')
      expect(readFileSync(foreign).equals(bytes)).toBe(true)
      store.close()
      const newer = new Database(path)
      newer.pragma('user_version = 999')
      newer.close()
      expect(codeOf(() => openContextStore(path))).toBe('SCHEMA_TOO_NEW')
      dir.cleanup()
      const fresh = tempStore()
      store = fresh.store
      const old = cleanup
      cleanup = () => {
        fresh.cleanup()
        old()
      }
    })

    it('refuses a path it cannot open as STORAGE_ERROR, with the cause', () => {
      const dir = tempDir()
      for (const bad of [dir.file('missing/ledger.db'), dir.path]) {
        const error = refusal(() => openContextStore(bad))
        expect(error.code).toBe('STORAGE_ERROR')
        expect(error.cause).toBeInstanceOf(Error)
      }
      dir.cleanup()
    })

    it('sets WAL mode, and takes over busy waits and checkpoints from SQLite', () => {
      const db = store.connection()
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
      // The store polls a busy lock itself (src/store/transactions.ts): SQLite's own handler is off.
      expect(db.pragma('busy_timeout', { simple: true })).toBe(0)
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
      expect(db.pragma('journal_size_limit', { simple: true })).toBe(WAL_CHECKPOINT_BYTES)
    })

    it('throws STORE_CLOSED after close', () => {
      store.close()
      expect(codeOf(() => store.sessions())).toBe('STORE_CLOSED')
    })
  })
})
