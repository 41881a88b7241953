/**
 * When the full-text index is written (src/store/search-index.ts): a batch of waiting messages is indexed
 * by a pass at the next turn of the event loop, not by the append that completed it; a caller that never
 * yields (a tight loop) is held to a bound on what waits, indexed inside its own writes; `close()` indexes
 * the rest and cancels the pass; and a pass that fails — another connection's lock, a full disk — throws
 * nothing into the event loop, leaves the messages waiting and searchable, and is made up later. Real
 * files, real second connections; no timing.
 */
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData } from '../../src/index.js'
import {
  SEARCH_BATCH_CHARS,
  SEARCH_BATCH_ROWS,
  SEARCH_PENDING_MAX_CHARS,
  SEARCH_PENDING_MAX_ROWS,
} from '../../src/store/search-index.js'
import { collect, useWorker } from '../reliability/support.js'
import { compareIndexWithView, docsMatching, idleTurn, waiting, watermark } from '../helpers/search-index.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-idle-')
const idleWriter = useWorker('idle-writer')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const turn = (i: number, words = `lima ${i}`): MessageData[] => [user(words), assistant(`ok ${i}`)]

function expectInStep(db: Database.Database): void {
  const { extra, missing } = compareIndexWithView(db)
  expect(extra).toStrictEqual([])
  expect(missing).toStrictEqual([])
}

/** Characters of the bodies waiting above the watermark. */
function waitingChars(db: Database.Database): number {
  return (
    db
      .prepare<[], number>(
        'SELECT coalesce(sum(length(body)), 0) FROM messages WHERE id > (SELECT indexed_to FROM search_state)',
      )
      .pluck()
      .get() ?? 0
  )
}

// A throw out of a pass would reach here (and end a real process): none may.
useNoUncaught()

describe('the idle pass', () => {
  it('indexes a batch at the next turn of the event loop, not in the append that completed it', async () => {
    const store = dir.open()
    const db = store.connection()
    for (let i = 0; i < SEARCH_BATCH_ROWS / 2 - 1; i++) store.append('s', turn(i))
    await idleTurn()
    // One message short of a batch: no pass.
    expect(watermark(db)).toBe(0)
    store.append('s', turn(99).slice(0, 1))
    store.append('s', turn(100).slice(1))
    // The batch is complete; the appends wrote no index entry.
    expect(waiting(db)).toBe(SEARCH_BATCH_ROWS)
    expect(docsMatching(db, 'lima')).toStrictEqual([])
    await idleTurn()
    expect(watermark(db)).toBe(SEARCH_BATCH_ROWS)
    expect(docsMatching(db, 'lima')).toHaveLength(SEARCH_BATCH_ROWS / 2)
    expectInStep(db)
  })

  it('is scheduled once however many writes complete batches before the loop turns', async () => {
    const store = dir.open()
    const db = store.connection()
    const segments = (): number =>
      db.prepare<[], number>('SELECT count(DISTINCT segid) FROM search_index_idx').pluck().get() ?? 0
    // Three batches' worth, each write past the batch size: one pass, one segment.
    for (let i = 0; i < (3 * SEARCH_BATCH_ROWS) / 2; i++) store.append('s', turn(i))
    expect(waiting(db)).toBe(3 * SEARCH_BATCH_ROWS)
    await idleTurn()
    expect(waiting(db)).toBe(0)
    expect(segments()).toBe(1)
    expectInStep(db)
  })

  it('holds a tight loop to a bound: it indexes inside its writes once too many messages wait', () => {
    const store = dir.open()
    const db = store.connection()
    let most = 0
    let inline = 0
    // No turn of the event loop anywhere: only the bound indexes.
    for (let i = 0, seq = 0; i < 200; i++) {
      const n = 1 + (i % 7)
      const before = watermark(db)
      store.append(
        's',
        Array.from({ length: n }, (_, k) =>
          (seq + k) % 2 === 0 ? user(`mike ${seq + k}`) : assistant('ok'),
        ),
      )
      seq += n
      if (watermark(db) !== before) inline++
      most = Math.max(most, waiting(db))
      expect(waiting(db)).toBeLessThan(SEARCH_PENDING_MAX_ROWS)
    }
    expect(inline).toBeGreaterThan(0)
    expect(most).toBeGreaterThan(SEARCH_PENDING_MAX_ROWS - 8)
    expectInStep(db)
    expect(store.search('mike', { limit: 1000 })).toHaveLength(
      db.prepare<[], number>("SELECT count(*) FROM messages WHERE role = 'user'").pluck().get() ?? 0,
    )
  })

  it('holds a tight loop of large messages to a bound on their characters', async () => {
    const store = dir.open()
    const db = store.connection()
    const body = (i: number): string => `${'november '.repeat(4000)}${i}`
    expect(body(0).length).toBeLessThan(SEARCH_BATCH_CHARS)
    for (let i = 0; i < 12; i++) {
      store.append('s', user(body(i)))
      expect(waitingChars(db)).toBeLessThan(SEARCH_PENDING_MAX_CHARS)
    }
    expect(watermark(db)).toBeGreaterThan(0)
    // Fewer than a batch of messages, but more than a batch of characters: the pass indexes them.
    store.append('s', user(body(12)))
    store.append('s', user(body(13)))
    expect(waiting(db)).toBeGreaterThan(0)
    expect(waiting(db)).toBeLessThan(SEARCH_BATCH_ROWS)
    await idleTurn()
    expect(waiting(db)).toBe(0)
    expectInStep(db)
  })

  it('close() cancels the pass and indexes what waits; nothing runs after it', async () => {
    const store = dir.open()
    for (let i = 0; i < SEARCH_BATCH_ROWS; i++) store.append('s', turn(i))
    const path = dir.file()
    store.close()
    await idleTurn()
    await idleTurn()
    const db = new Database(path, { readonly: true })
    try {
      expect(waiting(db)).toBe(0)
      expect(docsMatching(db, 'lima')).toHaveLength(SEARCH_BATCH_ROWS)
    } finally {
      db.close()
    }
    expect(() => store.search('lima')).toThrow(/closed/)
  })

  it('never runs on a read-only store, which reads the waiting messages itself', async () => {
    const writer = dir.open('shared.db')
    for (let i = 0; i < 10; i++) writer.append('s', turn(i))
    const reader = dir.open('shared.db', { readonly: true })
    await idleTurn()
    expect(reader.search('lima')).toHaveLength(10)
    expect(watermark(reader.connection())).toBe(0)
  })

  it('leaves the messages waiting while another connection holds the lock, and is made up by the next write', async () => {
    const errors: unknown[] = []
    const store = dir.open('locked.db', { onBackgroundError: (e) => errors.push(e) })
    const db = store.connection()
    for (let i = 0; i < SEARCH_BATCH_ROWS / 2; i++) store.append('s', turn(i))
    const other = new Database(dir.file('locked.db'))
    try {
      other.exec('BEGIN IMMEDIATE')
      await idleTurn()
      // The pass did not wait for the lock: the messages still wait, and a search still finds them.
      expect(watermark(db)).toBe(0)
      expect(store.search('lima')).toHaveLength(SEARCH_BATCH_ROWS / 2)
      other.exec('ROLLBACK')
    } finally {
      other.close()
    }
    // Another connection's lock is not a failure to report.
    expect(errors).toStrictEqual([])
    await idleTurn()
    expect(watermark(db)).toBe(0)
    store.append('s', user('oscar'))
    await idleTurn()
    expect(waiting(db)).toBe(0)
    expectInStep(db)
  })

  it('reports a failed pass to onBackgroundError, throws nothing, and is made up once the disk has room', async () => {
    const errors: unknown[] = []
    const store = dir.open('full.db', {
      onBackgroundError: (e) => {
        errors.push(e)
        // A callback that throws is ignored: it must not end the process either.
        throw new Error('callback failed')
      },
    })
    const db = store.connection()
    // Words enough that the batch's index segment needs pages of its own.
    const words = (i: number): string => Array.from({ length: 60 }, (_, k) => `w${i}x${k}`).join(' ')
    for (let i = 0; i < SEARCH_BATCH_ROWS / 2; i++) store.append('s', turn(i, `lima ${words(i)}`))
    expect(waiting(db)).toBe(SEARCH_BATCH_ROWS)
    // The pass is scheduled; before it runs, the file may no longer grow (a full disk).
    const pages = db.pragma('page_count', { simple: true }) as number
    // eslint-disable-next-line no-restricted-syntax -- a fixture: an integer page cap computed by the test
    db.pragma(`max_page_count = ${pages}`)
    await idleTurn()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(ContextLedgerError)
    expect((errors[0] as ContextLedgerError).code).toBe('STORAGE_FULL')
    expect(watermark(db)).toBe(0)
    expect(store.search('lima')).toHaveLength(SEARCH_BATCH_ROWS / 2)
    db.pragma('max_page_count = 1073741823')
    store.append('s', user('papa'))
    await idleTurn()
    expect(errors).toHaveLength(1)
    expect(waiting(db)).toBe(0)
    expectInStep(db)
  })

  it('never keeps a process alive: a script that appends a batch and does not close exits', async () => {
    const path = dir.file('exit.db')
    const exit = await collect(idleWriter([path, String(SEARCH_BATCH_ROWS + 4)]))
    expect(exit.stderr).toBe('')
    expect(exit.code).toBe(0)
    expect(exit.lines).toStrictEqual([`W 0 ${SEARCH_BATCH_ROWS + 4}`])
    // Whether its pass ran before the exit or not, the file is in step and every message found.
    const store = dir.open('exit.db')
    expectInStep(store.connection())
    expect(store.search('kilo', { limit: 100 })).toHaveLength(SEARCH_BATCH_ROWS + 4)
  })
})
