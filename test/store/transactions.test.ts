/**
 * How a store waits for another connection's write lock, and when it checkpoints the write-ahead log.
 * The waits run against a real lock held by a second connection, with a clock the test controls, so
 * what is asserted is the schedule of attempts, not how long anything took.
 */
import { statSync } from 'node:fs'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openContextStore, type MessageData } from '../../src/index.js'
import {
  CHECKPOINT_CHECK_EVERY,
  LOCK_POLL_LATE_AFTER_MS,
  LOCK_POLL_LATE_MAX_MS,
  LOCK_POLL_MAX_MS,
  lockPollDelayMs,
  Transactions,
  WAL_CHECKPOINT_BYTES,
  type LockClock,
} from '../../src/store/transactions.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

/** A clock whose time moves only when the code under test sleeps; it records every sleep. */
function fakeClock(onSleep: (sleeps: number[]) => void = () => {}): LockClock & { sleeps: number[] } {
  let now = 0
  let seed = 1
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms)
      now += ms
      onSleep(sleeps)
    },
    // A fixed sequence, so a run is reproducible.
    random: () => {
      seed = (seed * 48271) % 2147483647
      return seed / 2147483647
    },
  }
}

function isBusyError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_BUSY')
}

describe('lockPollDelayMs', () => {
  it('sleeps at most LOCK_POLL_MAX_MS, at most LOCK_POLL_LATE_MAX_MS once a caller has waited a while, and never less the longer it waits', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 60_000, noNaN: true }),
        fc.double({ min: 0, max: 60_000, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (a, b, random) => {
          const [early, late] = a <= b ? [a, b] : [b, a]
          const d = lockPollDelayMs(early, random)
          expect(d).toBeGreaterThan(0)
          expect(d).toBeLessThanOrEqual(LOCK_POLL_MAX_MS)
          if (early >= LOCK_POLL_LATE_AFTER_MS) expect(d).toBeLessThanOrEqual(LOCK_POLL_LATE_MAX_MS)
          expect(lockPollDelayMs(late, random)).toBeLessThanOrEqual(d)
        },
      ),
    )
  })
})

describe('Transactions', () => {
  let dir: TempDir
  let holder: Database.Database
  let db: Database.Database

  beforeEach(() => {
    dir = tempDir()
    const path = dir.file('lock.db')
    holder = new Database(path)
    holder.pragma('journal_mode = WAL')
    holder.exec('CREATE TABLE t (x INTEGER)')
    db = new Database(path, { timeout: 200 })
  })

  afterEach(() => {
    if (holder.inTransaction) holder.exec('ROLLBACK')
    holder.close()
    db.close()
    dir.cleanup()
  })

  it('takes its deadline from the connection’s busy timeout and turns SQLite’s own busy handler off', () => {
    const tx = new Transactions(db, fakeClock())
    expect(tx.timeoutMs).toBe(200)
    expect(db.pragma('busy_timeout', { simple: true })).toBe(0)
  })

  describe('write', () => {
    it('polls a busy lock at short intervals, shorter the longer it waits, and runs the work once when it is free', () => {
      const release = 300 // polls before the holder commits
      const clock = fakeClock((sleeps) => {
        if (sleeps.length === release) holder.exec('COMMIT')
      })
      const tx = new Transactions(db, clock)
      holder.exec('BEGIN IMMEDIATE')
      let runs = 0
      tx.write(() => {
        runs++
        db.prepare('INSERT INTO t VALUES (1)').run()
      })
      expect(runs).toBe(1)
      expect(clock.sleeps).toHaveLength(release)
      let waited = 0
      for (const ms of clock.sleeps) {
        expect(ms).toBeLessThanOrEqual(
          waited < LOCK_POLL_LATE_AFTER_MS ? LOCK_POLL_MAX_MS : LOCK_POLL_LATE_MAX_MS,
        )
        waited += ms
      }
      expect(waited).toBeGreaterThan(LOCK_POLL_LATE_AFTER_MS)
      expect(holder.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1)
    })

    it('gives up at its deadline for the whole call with SQLITE_BUSY, having run nothing', () => {
      const clock = fakeClock()
      const tx = new Transactions(db, clock)
      holder.exec('BEGIN IMMEDIATE')
      let runs = 0
      let caught: unknown
      try {
        tx.write(() => runs++)
      } catch (error) {
        caught = error
      }
      expect(isBusyError(caught)).toBe(true)
      expect(runs).toBe(0)
      const waited = clock.sleeps.reduce((a, b) => a + b, 0)
      expect(waited).toBeCloseTo(200, 6)
      // Never one long sleep: a caller polls all along, as often at the end as at the start.
      expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(LOCK_POLL_MAX_MS)
      expect(clock.sleeps.length).toBeGreaterThanOrEqual(200 / LOCK_POLL_MAX_MS)
    })

    it('rethrows what is not a busy lock at once, without waiting', () => {
      const clock = fakeClock()
      const tx = new Transactions(db, clock)
      expect(() => tx.write(() => db.prepare('INSERT INTO missing VALUES (1)').run())).toThrow(/missing/)
      expect(clock.sleeps).toStrictEqual([])
    })
  })

  describe('read', () => {
    it('reads while another connection holds the write lock, without waiting', () => {
      const clock = fakeClock()
      const tx = new Transactions(db, clock)
      holder.exec('BEGIN IMMEDIATE')
      holder.exec('INSERT INTO t VALUES (1)')
      expect(tx.read(() => db.prepare('SELECT count(*) FROM t').pluck().get())).toBe(0)
      expect(clock.sleeps).toStrictEqual([])
    })
  })
})

describe('checkpoints', () => {
  let dir: TempDir

  beforeEach(() => {
    dir = tempDir()
  })

  afterEach(() => {
    dir.cleanup()
  })

  /** A turn of two messages with ~32 KB of text, so each append adds about ten pages to the log. */
  function turn(i: number): MessageData[] {
    return [
      { role: 'user', content: [{ text: `question ${i} ${'q'.repeat(16_000)}` }] },
      { role: 'assistant', content: [{ text: `answer ${i} ${'a'.repeat(16_000)}` }] },
    ]
  }

  function walSize(path: string): number {
    return statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0
  }

  it('start the log over near WAL_CHECKPOINT_BYTES: it never grows much past that size', () => {
    const path = dir.file('ledger.db')
    const store = openContextStore(path)
    // About three times the limit of log in all.
    const turns = Math.ceil((3 * WAL_CHECKPOINT_BYTES) / 40_000)
    const sizes: number[] = []
    let growth = 0
    for (let i = 0; i < turns; i++) {
      const before = walSize(path)
      store.append('s', turn(i))
      const after = walSize(path)
      sizes.push(after)
      growth = Math.max(growth, after - before)
    }
    store.close()
    // A connection looks every CHECKPOINT_CHECK_EVERY commits: the log can pass the limit by that many.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(
      WAL_CHECKPOINT_BYTES + (CHECKPOINT_CHECK_EVERY + 1) * growth,
    )
    const cutBacks = sizes.filter((size, i) => i > 0 && size < (sizes[i - 1] as number)).length
    expect(cutBacks).toBeGreaterThanOrEqual(2)
  })

  it('give up while a reader is on the log, never failing the write, and start it over once it has gone', () => {
    const path = dir.file('ledger.db')
    const store = openContextStore(path)
    store.append('s', turn(0))
    const reader = new Database(path)
    reader.exec('BEGIN')
    const seen = reader.prepare('SELECT count(*) FROM messages').pluck().get()
    let i = 1
    // Past the limit, and several looks later: every one of them had to give up.
    while (walSize(path) <= WAL_CHECKPOINT_BYTES) store.append('s', turn(i++))
    for (let k = 0; k < 3 * CHECKPOINT_CHECK_EVERY; k++) store.append('s', turn(i++))
    expect(walSize(path)).toBeGreaterThan(WAL_CHECKPOINT_BYTES)
    // The reader still sees the snapshot it started with.
    expect(reader.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(seen)
    reader.exec('COMMIT')
    reader.close()
    // The next look checkpoints; the write after it starts the log over and cuts the file back.
    for (let k = 0; k < CHECKPOINT_CHECK_EVERY + 1; k++) store.append('s', turn(i++))
    expect(walSize(path)).toBeLessThanOrEqual(WAL_CHECKPOINT_BYTES)
    expect(store.session('s')?.messageCount).toBe(2 * i)
    store.close()
  })
})
