/**
 * Adversarial, PostgreSQL: `LedgerSessionStore` appends while the server kills the store's connections
 * (`pg_terminate_backend` every 40–160 ms, a failover or an idle reaper would do the same), driven as the
 * SDK's batcher drives a store — each batch tried up to three times, then dropped — with compactions in
 * the transcript. A killed commit may have landed although its call failed, so a retried batch may find
 * its entries stored: they must be held, not doubled, and the SDK's summary must stay the fold of exactly
 * what `load` gives. Held: no uncaught error; every batch stored whole or not at all; every uuid once;
 * the sidecar the fold of the transcript; the window rules; a last clean re-send of everything leaves
 * every entry with a uuid stored.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { openPostgresContextStore } from '../../src/backends/postgres/index.js'
import { LedgerSessionStore } from '../../src/adapters/claude-agent-sdk/index.js'
import { EntryMaker } from '../helpers/claude-format-entries.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { LONG } from '../reliability/support.js'
import { useDatabases } from './databases.js'

const { database, track } = useDatabases()
const uncaught = useNoUncaught()
const TURNS = LONG ? 200 : 30
const KEY = { projectKey: '-srv-killed', sessionId: '0b8f7e4c-0000-4000-8000-00000000000b' }

/** A transcript in the CLI's batches: a turn with a call per batch, a compaction every fifth. */
function batches(): SessionStoreEntry[][] {
  const m = new EntryMaker('k')
  const out: SessionStoreEntry[][] = []
  for (let t = 0; t < TURNS; t++) {
    const batch: unknown[] = [
      m.prompt(`prompt ${t}`),
      m.call(`toolu_${t}`),
      m.result(`toolu_${t}`, `result ${t}`),
      m.text(`answer ${t}`, `msg_${t}`),
      { ...EntryMaker.bookkeeping('cost-state'), turn: t },
    ]
    if (t % 5 === 4) batch.push(...m.compaction(`summary up to ${t}`))
    out.push(JSON.parse(JSON.stringify(batch)) as SessionStoreEntry[])
  }
  return out
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Kills the store's backends (not its own) every 40–160 ms until `stop` says so. */
async function killLoop(url: string, stop: () => boolean): Promise<number> {
  const killer = new pg.Client({ connectionString: url })
  await killer.connect()
  let kills = 0
  try {
    while (!stop()) {
      const { rowCount } = await killer.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
      kills += rowCount ?? 0
      await sleep(40 + Math.floor(Math.random() * 120))
    }
  } finally {
    await killer.end()
  }
  return kills
}

describe('LedgerSessionStore while PostgreSQL kills its connections', () => {
  it('keeps every batch whole or not at all, every uuid once, the summary the fold of what it holds', async () => {
    const url = await database()
    const store = track(await openPostgresContextStore({ connectionString: url, maxConnections: 4 }))
    const sessions = new LedgerSessionStore({ store })
    const sent = batches()
    let done = false
    const killing = killLoop(url, () => done)
    const dropped: number[] = []
    const attempts: number[] = []
    try {
      for (const [i, batch] of sent.entries()) {
        let tries = 0
        for (let stored = false; !stored && tries < 3;) {
          tries++
          try {
            await sessions.append(KEY, batch)
            stored = true
          } catch (error) {
            expect(error).toMatchObject({ name: 'ContextLedgerError' })
            await sleep(tries === 1 ? 20 : 80)
            if (tries === 3) dropped.push(i)
          }
        }
        attempts.push(tries)
      }
    } finally {
      done = true
    }
    expect(await killing).toBeGreaterThan(0)
    expect(uncaught).toStrictEqual([])

    const loaded = (await sessions.load(KEY)) ?? []
    const uuids = loaded.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid]))
    expect(new Set(uuids).size).toBe(uuids.length)
    for (const [i, batch] of sent.entries()) {
      const present = batch.filter((e) => e.uuid !== undefined && uuids.includes(e.uuid)).length
      const all = batch.filter((e) => e.uuid !== undefined).length
      // Whole or nothing; nothing only for a batch the loop dropped.
      expect([0, all]).toContain(present)
      if (!dropped.includes(i)) expect(present).toBe(all)
    }
    // An entry without uuid is stored once per try that committed: never more often than it was sent.
    for (const [i, n] of attempts.entries()) {
      const copies = loaded.filter((e) => e.type === 'cost-state' && e.turn === i).length
      expect(copies).toBeLessThanOrEqual(n)
      if (!dropped.includes(i)) expect(copies).toBeGreaterThanOrEqual(1)
    }
    const [summary] = await sessions.listSessionSummaries(KEY.projectKey)
    expect(summary?.data).toStrictEqual(foldSessionSummary(undefined, KEY, loaded, { mtime: 0 }).data)
    await assertWindowRulesOf(store, sessions.sessionIdOf(KEY))

    // Sent again without kills (importSessionToStore): every entry with a uuid is there, once.
    for (const batch of sent) await sessions.append(KEY, batch)
    const after = (await sessions.load(KEY)) ?? []
    const all = sent.flat().flatMap((e) => (e.uuid === undefined ? [] : [e.uuid]))
    expect(after.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid])).sort()).toStrictEqual([...all].sort())
    const [again] = await sessions.listSessionSummaries(KEY.projectKey)
    expect(again?.data).toStrictEqual(foldSessionSummary(undefined, KEY, after, { mtime: 0 }).data)
  }, 240_000)
})
