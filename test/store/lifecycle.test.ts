/**
 * The data lifecycle: deleting a session erases every row of it and its bytes from the files; pruning
 * erases the content of old messages out of the window without changing the window; a backup is a
 * consistent copy of a file in use, which copying the file is not.
 */
import { execFileSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { PRUNE_BATCH } from '../../src/store/lifecycle.js'
import { conversation, firstPlainUser } from '../helpers/conversations.js'
import { refusal } from '../helpers/refusal.js'
import { tempDir, useTempStore, type TempDir } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { assistant, user } from '../helpers/messages.js'
import { fcRuns } from '../helpers/runs.js'

let store: ContextStore
let path: string
let dir: TempDir
useTempStore((opened) => {
  ;({ store, path, dir } = opened)
})
afterEach(() => {
  vi.restoreAllMocks()
})

/** Every byte of a ledger on disk: the database, its write-ahead log and shared-memory index. */
function fileBytes(file = path): string {
  return ['', '-wal', '-shm']
    .map((suffix) => (existsSync(file + suffix) ? readFileSync(file + suffix).toString('latin1') : ''))
    .join('')
}

/** A session of `turns` user/assistant turns whose texts carry `tag`, with a window of `windowSize`. */
function fill(sessionId: string, tag: string, turns: number, windowSize = 4): PersistentConversationManager {
  const m = new PersistentConversationManager({ store, sessionId, windowSize })
  for (let i = 0; i < turns; i++) m.append([user(`${tag}-q${i}`), assistant(`${tag}-a${i}`)])
  m.applyWindow()
  return m
}

function rowCounts(): Record<string, number> {
  const row = store
    .connection()
    .prepare(
      `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM messages) AS messages,
        (SELECT count(*) FROM tool_calls) AS tool_calls, (SELECT count(*) FROM pin_events) AS pin_events,
        (SELECT count(*) FROM message_edits) AS message_edits, (SELECT count(*) FROM summaries) AS summaries,
        (SELECT count(*) FROM eviction_log) AS eviction_log`,
    )
    .get()
  return row as Record<string, number>
}

describe('ContextStore.deleteSession', () => {
  it('erases every row of the session and its bytes from the files, and leaves other sessions alone', async () => {
    const gone = fill('gone', 'DOOMED', 10)
    gone.append({
      role: 'assistant',
      content: [{ toolUse: { name: 'lookup', toolUseId: 'c1', input: { q: 'DOOMED-input' } } }],
    })
    gone.append({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'c1', status: 'success', content: [{ text: 'DOOMED-out' }] } }],
    })
    gone.pin({ seq: 0 }, { reason: 'DOOMED-reason' })
    gone.edit({ seq: 1 }, assistant('DOOMED-edit'))
    // Two summaries: the second folds the first in (both are the session's rows).
    for (const text of ['DOOMED-summary-1', 'DOOMED-summary-2'])
      await gone.summarize(() => text, { summaryRatio: 0.5, preserveRecentMessages: 2 })
    expect(gone.summaries()).toHaveLength(2)
    const kept = fill('kept', 'SURVIVOR', 3)
    await kept.summarize(() => 'SURVIVOR-summary', { preserveRecentMessages: 2 })
    const keptWindow = JSON.stringify(kept.window())

    const result = store.deleteSession('gone')
    expect(result).toStrictEqual({
      sessionId: 'gone',
      deleted: true,
      messages: 22,
      toolCalls: 1,
      pinEvents: 1,
      edits: 1,
      summaries: 2,
      evictions: 3,
      erased: true,
    })
    expect(rowCounts()).toStrictEqual({
      sessions: 1,
      messages: 6,
      tool_calls: 0,
      pin_events: 0,
      message_edits: 0,
      summaries: 1,
      eviction_log: store.evictions('kept').length,
    })
    expect(store.evictions('kept').length).toBeGreaterThan(0)
    expect(store.evictions('gone')).toStrictEqual([])
    expect(store.summaries('gone')).toStrictEqual([])
    expect(store.session('gone')).toBeUndefined()
    expect(store.window('gone')).toStrictEqual([])
    expect(JSON.stringify(kept.window())).toBe(keptWindow)
    assertWindowRules(store, 'kept')
    store.close()
    const bytes = fileBytes()
    expect(bytes).not.toContain('DOOMED')
    expect(bytes).toContain('SURVIVOR')
  })

  it('lets the same id start again from scratch, also for another connection that cached its key', () => {
    const other = openContextStore(path)
    try {
      const m = fill('s', 'old', 5)
      expect(other.window('s')).toHaveLength(m.window().length)
      store.deleteSession('s')
      expect(other.window('s')).toStrictEqual([])
      const entry = m.append(user('new start'))
      expect(entry).toMatchObject({ seq: 0 })
      expect(store.window('s')).toMatchObject([{ content: [{ text: 'new start' }] }])
      // The other connection cached the old key: it still finds the new session.
      expect(other.window('s')).toMatchObject([{ content: [{ text: 'new start' }] }])
      expect(other.session('s')).toMatchObject({ messageCount: 1, boundary: 0 })
      assertWindowRules(store, 's')
    } finally {
      other.close()
    }
  })

  it('lets a connection that cached the deleted session’s key read the new one’s pins and edits', () => {
    const other = openContextStore(path)
    try {
      fill('s', 'old', 3)
      expect(other.pinEvents('s')).toStrictEqual([])
      store.deleteSession('s')
      const m = fill('s', 'new', 3)
      m.pin({ seq: 0 }, { reason: 'kept' })
      m.edit({ seq: 0 }, user('new 0, edited'))
      expect(other.pinEvents('s').map((e) => e.reason)).toStrictEqual(['kept'])
      expect(other.pinnedMessages({ sessionId: 's' }).map((p) => p.seq)).toStrictEqual([0])
      expect(other.edits('s').map((e) => e.kind)).toStrictEqual(['edit'])
    } finally {
      other.close()
    }
  })

  it('is a no-op with zero counts for an unknown session', () => {
    fill('s', 'x', 2)
    const before = rowCounts()
    expect(store.deleteSession('nobody')).toStrictEqual({
      sessionId: 'nobody',
      deleted: false,
      messages: 0,
      toolCalls: 0,
      pinEvents: 0,
      edits: 0,
      summaries: 0,
      evictions: 0,
      erased: true,
    })
    expect(rowCounts()).toStrictEqual(before)
  })

  it('refuses a bad session id, and any delete on a read-only store', () => {
    expect(refusal(() => store.deleteSession(42 as unknown as string))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'sessionId',
    })
    fill('s', 'x', 2)
    const ro = openContextStore(path, { readonly: true })
    try {
      expect(refusal(() => ro.deleteSession('s'))).toMatchObject({ code: 'READ_ONLY' })
    } finally {
      ro.close()
    }
    expect(store.session('s')).toBeDefined()
  })
})

describe('ContextStore.prune', () => {
  it('erases old out-of-window content, keeps pins and the window byte-identical, and logs each message', () => {
    const m = fill('s', 'OLD', 12)
    m.edit({ seq: 2 }, user('OLDEDIT'))
    m.pin({ seq: 4 })
    m.applyWindow()
    const window = JSON.stringify(m.window())
    const summary = store.session('s')
    const boundaryBefore = assertWindowRules(store, 's').boundary
    const outside = m.history({ limit: 1000 }).filter((e) => !e.inWindow)
    expect(outside.length).toBeGreaterThan(5)

    const result = m.prune({ before: Date.now() + 1, keepPinned: true })
    expect(result).toStrictEqual({ sessions: 1, pruned: outside.length, erased: true })
    expect(JSON.stringify(m.window())).toBe(window)
    // The window is unchanged; the session's change time (and version) moved: its archive changed.
    expect(store.session('s')).toStrictEqual({ ...summary, updatedAt: expect.any(Date) as unknown })
    assertWindowRules(store, 's', {}, { previousBoundary: boundaryBefore })

    const history = m.history({ limit: 1000 })
    for (const e of history) {
      const pruned = outside.some((o) => o.seq === e.seq)
      expect(e.message.metadata?.custom?.contextLedger, `seq ${e.seq}`).toStrictEqual(
        pruned ? { pruned: true } : undefined,
      )
      if (pruned) expect(e.message.content).toStrictEqual([{ text: '[redacted]' }])
    }
    expect(history[4]?.message.content).toStrictEqual([{ text: 'OLD-q2' }])
    const log = m.edits().filter((e) => e.actor === 'retention')
    expect(log.map((e) => e.seq)).toStrictEqual(outside.map((o) => o.seq))
    expect(log.every((e) => e.kind === 'redact' && e.message === undefined)).toBe(true)
    expect(m.edits().find((e) => e.kind === 'edit')?.message).toBeUndefined()

    // Idempotent: nothing left to prune.
    expect(m.prune({ before: Date.now() + 1, keepPinned: true }).pruned).toBe(0)
    const windowTexts = m.window().flatMap((w) => w.content.map((c) => ('text' in c ? c.text : '')))
    store.close()
    const bytes = fileBytes()
    // Quoted: "OLD-q1" is a prefix of "OLD-q10", which may be in the window.
    for (const o of outside) {
      const text = (o.message.content[0] as { text: string }).text
      expect(bytes, text).not.toContain(`"${text}"`)
    }
    expect(bytes).not.toContain('OLDEDIT')
    for (const t of windowTexts) expect(bytes).toContain(`"${t}"`)
  })

  it('counts only the sessions it found', () => {
    fill('s', 'x', 4, 2)
    expect(store.prune({ sessionId: 'nosuch', before: Date.now() + 1, keepPinned: true })).toMatchObject({
      sessions: 0,
      pruned: 0,
    })
    expect(store.prune({ sessionId: 's', before: Date.now() + 1, keepPinned: true }).sessions).toBe(1)
  })

  it('prunes only messages appended before the cut-off', () => {
    let now = 1_000_000
    vi.spyOn(Date, 'now').mockImplementation(() => now)
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
    for (let i = 0; i < 6; i++) {
      now += 1000
      m.append([user(`q${i}`), assistant(`a${i}`)])
    }
    m.applyWindow()
    // Messages of turns 0..2 were appended at 1_001_000..1_003_000.
    expect(m.prune({ before: new Date(1_003_000), keepPinned: true }).pruned).toBe(4)
    const pruned = m.history({ limit: 100 }).filter((e) => e.message.metadata?.custom?.contextLedger)
    expect(pruned.map((e) => e.seq)).toStrictEqual([0, 1, 2, 3])
  })

  it('prunes every session when none is named, in batches', () => {
    fill('a', 'A', PRUNE_BATCH + 10, 2)
    fill('b', 'B', 5, 2)
    const windows = [JSON.stringify(store.window('a')), JSON.stringify(store.window('b'))]
    const result = store.prune({ before: Date.now() + 1, keepPinned: true })
    expect(result).toStrictEqual({ sessions: 2, pruned: 2 * (PRUNE_BATCH + 10) - 2 + 8, erased: true })
    expect([JSON.stringify(store.window('a')), JSON.stringify(store.window('b'))]).toStrictEqual(windows)
    assertWindowRules(store, 'a')
    assertWindowRules(store, 'b')
  })

  it('keeps a late result shown as text when it is pruned and later pinned back', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
    m.append(user('go'))
    m.append({ role: 'assistant', content: [{ toolUse: { name: 'lookup', toolUseId: 'c1', input: {} } }] })
    m.append(user('never mind')) // the open call gets a repair result
    m.append({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'c1', status: 'success', content: [{ text: 'LATE-SECRET' }] } }],
    })
    for (let i = 0; i < 4; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
    m.applyWindow()
    const late = m.history({ limit: 100 }).find((e) => e.late)
    expect(late?.inWindow).toBe(false)
    m.prune({ before: Date.now() + 1, keepPinned: true })
    m.pin({ seq: late?.seq ?? -1 })
    assertWindowRules(store, 's')
    expect(JSON.stringify(m.window())).not.toContain('LATE-SECRET')
  })

  it('refuses keepPinned other than true, a bad cut-off, unknown fields and a read-only store', () => {
    fill('s', 'x', 4, 2)
    const now = Date.now() + 1
    const cases: [unknown, string][] = [
      [{ before: now, keepPinned: false }, 'options.keepPinned'],
      [{ before: now }, 'options.keepPinned'],
      [{ before: 'yesterday', keepPinned: true }, 'options.before'],
      [{ before: new Date(Number.NaN), keepPinned: true }, 'options.before'],
      [{ before: 1e300, keepPinned: true }, 'options.before'],
      [{ before: 8.64e15 + 1, keepPinned: true }, 'options.before'],
      [{ before: -Number.MAX_VALUE, keepPinned: true }, 'options.before'],
      [{ keepPinned: true }, 'options.before'],
      [{ before: now, keepPinned: true, sessionId: '' }, 'options.sessionId'],
      [{ before: now, keepPinned: true, actor: '' }, 'options.actor'],
      [{ before: now, keepPinned: true, olderThan: 3 }, 'options.olderThan'],
      [null, 'options'],
    ]
    const history = JSON.stringify(store.history('s', { limit: 100 }))
    for (const [options, field] of cases)
      expect(
        refusal(() => store.prune(options as never)),
        field,
      ).toMatchObject({
        code: 'INVALID_OPTIONS',
        path: field,
      })
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    expect(refusal(() => m.prune({ before: now, keepPinned: true, sessionId: 'b' } as never))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'options.sessionId',
    })
    const ro = openContextStore(path, { readonly: true })
    try {
      expect(refusal(() => ro.prune({ before: now, keepPinned: true }))).toMatchObject({ code: 'READ_ONLY' })
    } finally {
      ro.close()
    }
    expect(JSON.stringify(store.history('s', { limit: 100 }))).toBe(history)
  })

  it('never changes the window or its rules, whatever the conversation, pins, limits and cut-off', () => {
    let prunedInAll = 0
    fc.assert(
      fc.property(
        conversation(12),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.record({ windowSize: fc.integer({ min: 1, max: 12 }), first: fc.nat(3), last: fc.nat(3) }),
        fc.nat(),
        (messages, pins, limits, cutAt) => {
          const sessionId = `p${Math.random()}`
          let now = 1_000_000
          const spy = vi.spyOn(Date, 'now').mockImplementation(() => now)
          try {
            const m = new PersistentConversationManager({
              store,
              sessionId,
              windowSize: limits.windowSize,
              protectedMessages: { first: limits.first, last: limits.last },
            })
            for (const msg of messages) {
              now += 10
              m.append(msg)
            }
            // A pin before the first plain user message is refused (no window can show it): pinned
            // from there on.
            const from = firstPlainUser(messages)
            for (const p of pins)
              if (from < messages.length) m.pin({ seq: from + (p % (messages.length - from)) })
            m.applyWindow()
            const ranges = { first: limits.first, last: limits.last }
            const report = assertWindowRules(store, sessionId, ranges)
            const window = JSON.stringify(m.window())
            const alternate = JSON.stringify(m.window({ alternate: true }))
            const summary = store.session(sessionId)
            const cut = 1_000_000 + (cutAt % (messages.length * 10 + 20))
            prunedInAll += m.prune({ before: cut, keepPinned: true }).pruned
            expect(JSON.stringify(m.window())).toBe(window)
            expect(JSON.stringify(m.window({ alternate: true }))).toBe(alternate)
            expect(store.session(sessionId)).toStrictEqual(summary)
            assertWindowRules(store, sessionId, ranges, { previousBoundary: report.boundary })
            for (const e of m.history({ limit: 1000 }))
              if (
                e.message.metadata?.custom?.contextLedger !== undefined &&
                'pruned' in (e.message.metadata.custom.contextLedger as object)
              ) {
                expect(e.inWindow || e.pinned).toBe(false)
                expect(e.createdAt.getTime()).toBeLessThan(cut)
              }
            // The window after further appends and applications is still valid.
            m.append(user('after'))
            m.applyWindow()
            assertWindowRules(store, sessionId, ranges)
          } finally {
            spy.mockRestore()
          }
        },
      ),
      { numRuns: fcRuns(25) },
    )
    expect(prunedInAll).toBeGreaterThan(0)
  })
})

describe('ContextStore.backup', () => {
  it('copies a file in use consistently, where copying the file misses what the log holds', async () => {
    const m = fill('s', 'x', 20)
    m.pin({ seq: 2 })
    fill('t', 'y', 3)
    // Small writes stay in the write-ahead log: the store checkpoints only past megabytes.
    expect(existsSync(`${path}-wal`)).toBe(true)
    const copied = dir.file('copied.db')
    copyFileSync(path, copied)
    const naive = openContextStore(copied)
    try {
      expect(naive.sessions().length).toBeLessThan(2)
    } finally {
      naive.close()
    }

    const target = dir.file('backup.db')
    const result = await store.backup(target)
    expect(result.path).toBe(target)
    expect(result.pages).toBeGreaterThan(0)
    const copy = openContextStore(target, { mustExist: true })
    try {
      expect(copy.sessions()).toStrictEqual(store.sessions())
      for (const s of ['s', 't']) {
        expect(copy.window(s)).toStrictEqual(store.window(s))
        expect(copy.pinnedMessages({ sessionId: s })).toStrictEqual(store.pinnedMessages({ sessionId: s }))
      }
    } finally {
      copy.close()
    }
  })

  it('never overwrites a FIFO, a device, a folder or a symbolic link to nothing, even told to', async () => {
    fill('s', 'x', 3)
    const pipe = dir.file('pipe.db')
    execFileSync('mkfifo', [pipe])
    const dangling = dir.file('dangling.db')
    symlinkSync(dir.file('nowhere.db'), dangling)
    const folder = dir.file('folder.db')
    mkdirSync(folder)
    for (const target of [pipe, dangling, folder])
      for (const overwrite of [false, true])
        await expect(store.backup(target, { overwrite }), target).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          path: 'destination',
          message: expect.stringMatching(/expected a file or a new path.*it was left as it is/) as unknown,
        })
    expect(lstatSync(pipe).isFIFO()).toBe(true)
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true)
    expect(existsSync(dir.file('nowhere.db'))).toBe(false)
  })

  it('refuses an existing destination unless told to overwrite, and the store own file', async () => {
    fill('s', 'x', 3)
    const target = dir.file('exists.db')
    writeFileSync(target, 'not a ledger')
    await expect(store.backup(target)).rejects.toMatchObject({ code: 'INVALID_OPTIONS', path: 'destination' })
    expect(readFileSync(target, 'utf8')).toBe('not a ledger')
    writeFileSync(`${target}-wal`, 'stale log')
    await store.backup(target, { overwrite: true })
    expect(existsSync(`${target}-wal`)).toBe(false)
    const copy = openContextStore(target)
    expect(copy.window('s')).toStrictEqual(store.window('s'))
    copy.close()
    await expect(store.backup(path, { overwrite: true })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'destination',
    })
    // Its log, index and journal are its own too, also spelled through a symlinked folder: replacing the
    // live log with a copy would lose every message it holds.
    const alias = dir.file('alias')
    symlinkSync(dirname(path), alias)
    for (const side of ['-wal', '-shm', '-journal'])
      for (const spelling of [path + side, join(alias, basename(path) + side)])
        await expect(store.backup(spelling, { overwrite: true }), spelling).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          path: 'destination',
        })
    await expect(store.backup(join(alias, basename(path)), { overwrite: true })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'destination',
    })
    const reopened = openContextStore(path)
    expect(reopened.window('s')).toStrictEqual(store.window('s'))
    reopened.close()
    await expect(store.backup('')).rejects.toMatchObject({ code: 'INVALID_OPTIONS', path: 'destination' })
    await expect(store.backup(dir.file('x.db'), { overwrite: 1 } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'options.overwrite',
    })
  })

  it('with compact, copies a ledger with 4 KiB pages into a working one with 1 KiB pages, also read-only', async () => {
    // A ledger as earlier versions made them: rebuilt with 4 KiB pages (only outside WAL mode).
    fill('s', 'x', 30).pin({ seq: 3 })
    fill('t', 'y', 4)
    store.close()
    const old = new Database(path)
    old.pragma('journal_mode = DELETE')
    old.pragma('page_size = 4096')
    old.exec('VACUUM')
    old.close()
    for (const readonly of [false, true]) {
      const source = openContextStore(path, { readonly })
      const target = dir.file(`compact-${readonly}.db`)
      try {
        expect(source.connection().pragma('page_size', { simple: true })).toBe(4096)
        const result = await source.backup(target, { compact: true })
        // Still 4 KiB: the store's own file keeps its page size.
        expect(source.connection().pragma('page_size', { simple: true })).toBe(4096)
        const copy = openContextStore(target, { mustExist: true })
        try {
          expect(copy.connection().pragma('page_size', { simple: true })).toBe(1024)
          expect(copy.connection().pragma('page_count', { simple: true })).toBe(result.pages)
          expect(copy.connection().pragma('integrity_check', { simple: true })).toBe('ok')
          expect(copy.sessions()).toStrictEqual(source.sessions())
          for (const sessionId of ['s', 't']) {
            expect(copy.history(sessionId, { limit: 100 })).toStrictEqual(
              source.history(sessionId, { limit: 100 }),
            )
            expect(copy.window(sessionId)).toStrictEqual(source.window(sessionId))
          }
          // The copy is a ledger that goes on.
          const m = new PersistentConversationManager({ store: copy, sessionId: 's', windowSize: 3 })
          m.append([user('after'), assistant('compaction')])
          expect(m.applyWindow().boundary).toBeGreaterThan(0)
          assertWindowRules(copy, 's')
        } finally {
          copy.close()
        }
      } finally {
        source.close()
      }
    }
    const again = openContextStore(path)
    try {
      // Another page size, asked for: the copy has it.
      const big = await again.backup(dir.file('big.db'), { compact: true, pageSize: 8192 })
      const copy = openContextStore(big.path, { mustExist: true })
      expect(copy.connection().pragma('page_size', { simple: true })).toBe(8192)
      expect(copy.window('s')).toStrictEqual(again.window('s'))
      copy.close()
      await expect(again.backup(dir.file('y.db'), { compact: 'yes' } as never)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        path: 'options.compact',
      })
      // A page size without compact (the backup API keeps the source's), or one SQLite does not take.
      for (const options of [
        { pageSize: 2048 },
        { compact: true, pageSize: 1000 },
        { compact: false, pageSize: 2048 },
      ])
        await expect(again.backup(dir.file('z.db'), options as never)).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          path: 'options.pageSize',
        })
      expect(existsSync(dir.file('z.db'))).toBe(false)
    } finally {
      again.close()
    }
  })

  it('with compact, gives the copy of an in-memory store the page size asked for', async () => {
    for (const [made, asked] of [
      [1024, 65536],
      [4096, 1024],
      [2048, 512],
    ] as const) {
      const memory = openContextStore(':memory:', { pageSize: made })
      try {
        const m = new PersistentConversationManager({ store: memory, sessionId: 's', windowSize: 4 })
        for (let i = 0; i < 10; i++) m.append([user(`q${i}`), assistant(`a${i}`)])
        m.applyWindow()
        const target = dir.file(`memory-${made}-${asked}.db`)
        const result = await memory.backup(target, { compact: true, pageSize: asked })
        const copy = openContextStore(target, { mustExist: true })
        try {
          expect(copy.connection().pragma('page_size', { simple: true })).toBe(asked)
          expect(copy.connection().pragma('page_count', { simple: true })).toBe(result.pages)
          expect(copy.window('s')).toStrictEqual(memory.window('s'))
        } finally {
          copy.close()
        }
      } finally {
        memory.close()
      }
    }
  })

  it('works on a read-only store, and reports a destination it cannot write as a typed error', async () => {
    fill('s', 'x', 3)
    const ro = openContextStore(path, { readonly: true })
    const other = tempDir()
    try {
      const target = other.file('ro.db')
      await ro.backup(target)
      const copy = openContextStore(target)
      expect(copy.window('s')).toStrictEqual(store.window('s'))
      copy.close()
      await expect(ro.backup(other.file('missing/dir/x.db'))).rejects.toMatchObject({ code: 'STORAGE_ERROR' })
    } finally {
      ro.close()
      other.cleanup()
    }
  })
})
