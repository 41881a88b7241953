/**
 * Adversarial: the database refuses logins for longer than the store asks again (`ALTER DATABASE …
 * ALLOW_CONNECTIONS false`, SQLSTATE 55000 from the server's `CheckMyDatabase`, with the connections it
 * had terminated). The store treats a refused login as a lost connection and asks again after a short
 * pause (`store.ts`, `reconnectPause`): a few times for a read, up to a dozen for a write. Promised
 * (docs/postgres.md, "Failover and dropped connections"): every call then fails with a typed
 * `ContextLedgerError`, nothing half-written is left, and the same store works once logins are allowed
 * again. A write whose flush meets the refusal after its snapshot was read is applied exactly once; one
 * whose commit's answer is lost fails typed, and its retry finds it. Two stores writing through a storm
 * of refusals leave every message exactly once, in dense seqs.
 *
 * Bounded time without a clock: the refusal is lifted only after every call has settled, so a call that
 * waited for the database to come back would hang the test.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openPostgresContextStore, type PostgresContextStore } from '../../src/backends/postgres/index.js'
import type { MessageData, WindowLimits } from '../../src/index.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { refusalOf } from '../helpers/refusal.js'
import { useDatabases } from './databases.js'
import { CuttingProxy } from './cutting-proxy.js'
import { outage, storm } from './outage.js'

const { adminUrl, database, track } = useDatabases()
useNoUncaught()

const LIMITS: WindowLimits = { windowSize: 4, tokenBudget: undefined, first: 0, last: 1 }
const say = (text: string, trackingId?: string): MessageData => ({
  role: 'user',
  content: [{ text }],
  ...(trackingId === undefined ? {} : { trackingId }),
})
const answer = (text: string, trackingId?: string): MessageData => ({
  role: 'assistant',
  content: [{ text }],
  ...(trackingId === undefined ? {} : { trackingId }),
})

/** Everything a session reads as: compared before and after a refused call. */
async function state(store: PostgresContextStore, id: string): Promise<unknown> {
  return {
    history: await store.history(id, { limit: 1000 }),
    window: await store.windowEntries(id),
    session: await store.session(id),
    branches: await store.branches(id),
    summaries: await store.summaries(id),
    pins: await store.pinEvents(id),
    edits: await store.edits(id),
    evictions: await store.evictions(id),
    sessions: (await store.sessions()).map((s) => s.id),
  }
}

/** A pool whose `query` runs `before(name)` first: the store's hooks into the moment between statements. */
function hookedPool(url: string, before: (name: string | undefined) => Promise<void>): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  pool.on('error', () => undefined)
  const query = pool.query.bind(pool) as (config: { name?: string }) => Promise<unknown>
  // The store calls `pool.query(config)` with one config object (database.ts).
  ;(pool as unknown as { query: (config: { name?: string }) => Promise<unknown> }).query = async (config) => {
    await before(config.name)
    return query(config)
  }
  return pool
}

describe('logins refused for longer than the store asks again', () => {
  it('every call fails with STORAGE_ERROR while refused, nothing is written, the same store works after', async () => {
    const url = await database()
    const store = track(await openPostgresContextStore({ connectionString: url }))
    await store.append('s', [say('one', 'u1'), answer('two', 'a1'), say('three', 'u2'), answer('four', 'a2')])
    await store.applyWindow('s', LIMITS)
    await store.fork('s', { atSeq: 1, newSessionId: 'b' })
    const before = { s: await state(store, 's'), b: await state(store, 'b') }
    const { cut, restore } = outage(adminUrl, url)
    await cut()
    const calls: [string, () => Promise<unknown>][] = [
      ['append', () => store.append('s', say('five', 'u3'))],
      ['append new session', () => store.append('new', say('hello'))],
      ['applyWindow', () => store.applyWindow('s', { ...LIMITS, windowSize: 2 })],
      ['pin', () => store.pin('s', { seq: 0 }, {}, LIMITS)],
      ['unpin', () => store.unpin('s', { seq: 0 })],
      ['fork', () => store.fork('s', { atSeq: 2, newSessionId: 'c' })],
      ['fork by trackingId', () => store.fork('b', { trackingId: 'u1', newSessionId: 'd' })],
      ['rewind', () => store.rewind('s', { toSeq: 1 })],
      ['deleteSession', () => store.deleteSession('b')],
      ['editMessage', () => store.editMessage('s', { seq: 1 }, answer('edited'))],
      ['planFold', () => store.planFold('s', LIMITS, { kind: 'ratio', ratio: 1, preserve: 1 })],
      ['prune', () => store.prune({ before: Date.now() + 1000, keepPinned: true })],
      ['window', () => store.window('s')],
      ['windowEntries', () => store.windowEntries('b')],
      ['history', () => store.history('b')],
      ['message', () => store.message('s', { trackingId: 'u1' })],
      ['messageCount', () => store.messageCount('s')],
      ['session', () => store.session('s')],
      ['sessions', () => store.sessions()],
      ['branches', () => store.branches('b')],
      ['summaries', () => store.summaries('s')],
      ['pinnedMessages', () => store.pinnedMessages({ sessionId: 's' })],
      ['search', () => store.search('three')],
      ['evictions', () => store.evictions('s')],
      ['pinEvents', () => store.pinEvents('s')],
      ['edits', () => store.edits('s')],
      ['reading', () => store.reading((r) => r.history('s'))],
    ]
    // All at once, as a busy application would: the pool's refused logins, the pauses, the attempts.
    const settled = await Promise.all(
      calls.map(async ([name, call]) => {
        const error = await refusalOf(call).catch((e: unknown) => e as Error)
        return { name, code: 'code' in error ? error.code : `raw: ${error.message}` }
      }),
    )
    expect(settled).toStrictEqual(calls.map(([name]) => ({ name, code: 'STORAGE_ERROR' })))
    await restore()
    // Nothing was written while refused; the store (not reopened) reads and writes again.
    expect(await state(store, 's')).toStrictEqual(before.s)
    expect(await state(store, 'b')).toStrictEqual(before.b)
    expect(await store.session('c')).toBeUndefined()
    expect(await store.session('new')).toBeUndefined()
    const [entry] = await store.append('s', say('five', 'u3'))
    expect(entry?.seq).toBe(4)
    const branch = await store.fork('s', { atSeq: 2, newSessionId: 'c' })
    expect(branch.messageCount).toBe(3)
    expect(store.stats.reconnects).toBeGreaterThan(0)
  })

  it('opening a store while logins are refused fails with STORAGE_ERROR; opening again after works', async () => {
    const url = await database()
    track(await openPostgresContextStore({ connectionString: url }))
    const { cut, restore } = outage(adminUrl, url)
    await cut()
    for (const readonly of [false, true]) {
      const error = await refusalOf(() => openPostgresContextStore({ connectionString: url, readonly }))
      expect(error.code).toBe('STORAGE_ERROR')
    }
    await restore()
    const store = track(await openPostgresContextStore({ connectionString: url }))
    expect(await store.sessions()).toStrictEqual([])
  })

  it('a write whose flush is refused after its snapshot was read is applied exactly once when logins return', async () => {
    const url = await database()
    const { cut, restore } = outage(adminUrl, url)
    let phase: 'idle' | 'armed' | 'refusing' = 'idle'
    let sinceCut = 0
    const pool = hookedPool(url, async (name) => {
      if (phase === 'armed' && name === 'context_ledger_flush') {
        // The snapshot was read; the database goes away before the flush reaches it.
        phase = 'refusing'
        await cut()
      } else if (phase === 'refusing' && ++sinceCut === 3) {
        // The flush and two snapshots were refused; logins return before the third snapshot.
        phase = 'idle'
        await restore()
      }
    })
    const store = track(await openPostgresContextStore({ pool }))
    await store.append('s', [say('one', 'u1'), answer('two', 'a1')])
    const reconnects = store.stats.reconnects
    phase = 'armed'
    const entries = await store.append('s', [say('three', 'u2'), answer('four')])
    expect(phase).toBe('idle')
    expect(store.stats.reconnects).toBeGreaterThan(reconnects)
    expect(entries.map((e) => e.seq)).toStrictEqual([2, 3])
    const history = await store.history('s')
    expect(history.map((e) => e.message.content[0])).toStrictEqual([
      { text: 'one' },
      { text: 'two' },
      { text: 'three' },
      { text: 'four' },
    ])
    expect(history[3]?.trackingId).toBe(entries[1]?.trackingId)
    await store.close()
    await pool.end()
  })

  it('a write refused after its snapshot for longer than its attempts fails typed, writes nothing, and a retry applies it once', async () => {
    const url = await database()
    const { cut, restore } = outage(adminUrl, url)
    let armed = false
    const pool = hookedPool(url, async (name) => {
      if (armed && name === 'context_ledger_flush') {
        armed = false
        await cut()
      }
    })
    const store = track(await openPostgresContextStore({ pool }))
    await store.append('s', [say('one', 'u1'), answer('two', 'a1')])
    armed = true
    const error = await refusalOf(() => store.append('s', [say('three', 'u2'), answer('four', 'a2')]))
    expect(error.code).toBe('STORAGE_ERROR')
    await restore()
    expect((await store.history('s')).map((e) => e.trackingId)).toStrictEqual(['u1', 'a1'])
    const again = await store.append('s', [say('three', 'u2'), answer('four', 'a2')])
    expect(again.map((e) => e.seq)).toStrictEqual([2, 3])
    expect((await store.history('s')).map((e) => e.trackingId)).toStrictEqual(['u1', 'a1', 'u2', 'a2'])
    await store.close()
    await pool.end()
  })

  it('a write committed whose answer is lost, then logins refused past its attempts: typed failure, the retry finds it, once', async () => {
    const url = await database()
    const { cut, restore } = outage(adminUrl, url)
    const target = new URL(url)
    const proxy = new CuttingProxy({ host: target.hostname, port: Number(target.port) })
    const through = new URL(url)
    through.port = String(await proxy.listen())
    const store = track(await openPostgresContextStore({ connectionString: through.toString() }))
    await store.append('s', [say('one', 'u1'), answer('two', 'a1')])
    // The flush commits; before its answer arrives the database stops taking logins and the connection goes.
    proxy.arm(cut)
    const error = await refusalOf(() => store.append('s', [say('three', 'u2'), answer('four', 'a2')]))
    expect(error.code).toBe('STORAGE_ERROR')
    expect(proxy.cuts).toBe(1)
    await restore()
    // The call failed, yet it had committed: its outcome was unknown to the store (docs/postgres.md,
    // "Failover and dropped connections"). Retried with its trackingIds it is a no-op, and it is there once.
    expect((await store.history('s')).map((e) => e.trackingId)).toStrictEqual(['u1', 'a1', 'u2', 'a2'])
    const again = await store.append('s', [say('three', 'u2'), answer('four', 'a2')])
    expect(again.map((e) => e.seq)).toStrictEqual([2, 3])
    expect((await store.history('s')).map((e) => e.trackingId)).toStrictEqual(['u1', 'a1', 'u2', 'a2'])
    await store.close()
    await proxy.close()
  })

  it('two stores writing one session through a storm of refusals: every message once, seqs dense', async () => {
    const url = await database()
    const stores = [
      track(await openPostgresContextStore({ connectionString: url })),
      track(await openPostgresContextStore({ connectionString: url })),
    ]
    await stores[0]?.append('s', say('start', 'start'))
    const seed = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)
    // Refusals with short pauses between, some of them longer than a call's attempts.
    const weather = storm(adminUrl, url, seed, { min: 15, spread: 40 })
    const failed: { store: number; ids: string[] }[] = []
    const codes = new Set<string>()
    await Promise.all(
      stores.map(async (store, w) => {
        for (let i = 0; weather.kills() < 12; i++) {
          const ids = [`w${w}-${i}-q`, `w${w}-${i}-a`]
          const write =
            i % 3 === 2
              ? store.applyWindow('s', LIMITS)
              : store.append('s', [say(`q ${w} ${i}`, ids[0]), answer(`a ${w} ${i}`, ids[1])])
          try {
            await write
          } catch (error) {
            const code = (error as { code?: unknown }).code
            codes.add(typeof code === 'string' ? code : `raw: ${String(error)}`)
            if (i % 3 !== 2) failed.push({ store: w, ids })
          }
          await store.window('s').catch((error: unknown) => {
            const code = (error as { code?: unknown }).code
            codes.add(typeof code === 'string' ? code : `raw: ${String(error)}`)
          })
        }
      }),
    )
    await weather.stop()
    // Only the documented codes for an outage (docs/postgres.md), never a raw error.
    expect([...codes].filter((c) => c !== 'STORAGE_ERROR' && c !== 'DATABASE_BUSY')).toStrictEqual([])
    // A failed append's outcome is unknown (its commit may have been the thing cut): retried with its
    // trackingIds it is there once — a no-op, or refused as a duplicate when others wrote after it.
    for (const f of failed) {
      const store = stores[f.store] as PostgresContextStore
      await store.append('s', [say('retry', f.ids[0]), answer('retry', f.ids[1])]).catch((error: unknown) => {
        expect((error as { code?: unknown }).code).toBe('DUPLICATE_MESSAGE')
      })
    }
    const history = await (stores[0] as PostgresContextStore).history('s', { limit: 10_000 })
    expect(history.map((e) => e.seq)).toStrictEqual(history.map((_, i) => i))
    const ids = history.map((e) => e.trackingId)
    expect(new Set(ids).size).toBe(ids.length)
    // Each question is followed by its own answer: an append is all or nothing.
    for (const [i, e] of history.entries())
      if (e.trackingId.endsWith('-q'))
        expect(history[i + 1]?.trackingId).toBe(e.trackingId.replace(/q$/, 'a'))
    expect(await (stores[1] as PostgresContextStore).windowEntries('s')).toStrictEqual(
      await (stores[0] as PostgresContextStore).windowEntries('s'),
    )
  })
})
