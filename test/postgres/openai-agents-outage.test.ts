/**
 * Adversarial: `LedgerSession` on PostgreSQL when the database goes away in the middle of a call — its
 * backends terminated (`pg_terminate_backend`) and, to make a call give up, new connections refused for a
 * moment (`ALTER DATABASE … ALLOW_CONNECTIONS false`). Promised (docs/postgres.md, docs/openai-agents.md):
 * every failure is a typed `ContextLedgerError`, "nothing half-written is left", "retrying it yourself is
 * safe", and an operation id retried after an unknown outcome is applied exactly once.
 *
 * The deterministic cut: the database goes away while the session's summary model runs — that is, after
 * the call's items were committed and before the limits it applies next were written.
 */
import { describe, expect, it } from 'vitest'
import type { AgentInputItem } from '@openai/agents'
import { LedgerSession } from '../../src/adapters/openai-agents/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import type { Summarizer } from '../../src/summaries/summarize.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { providerProblems } from '../adapters/openai-agents/helpers.js'
import { useDatabases } from './databases.js'
import { outage, storm } from './outage.js'
import {
  archive,
  compaction,
  said,
  markersOf,
  occurrences,
  turn,
  typed,
  untilDone,
  user,
} from './openai-agents-support.js'

const { adminUrl, database, open } = useDatabases()
useNoUncaught()

/** A summarizer that cuts the database the first time it is armed and called. */
function cuttingSummarizer(cut: () => Promise<void>): { summarizer: Summarizer; arm: () => void } {
  let armed = false
  return {
    arm: () => {
      armed = true
    },
    summarizer: async (messages) => {
      if (armed) {
        armed = false
        await cut()
      }
      return { text: `summary of ${messages.length} items`, model: 'scripted' }
    },
  }
}

async function setup(windowSize: number): Promise<{
  session: LedgerSession<PostgresContextStore>
  store: PostgresContextStore
  arm: () => void
  restore: () => Promise<void>
  errors: string[]
}> {
  const url = await database()
  const store = await open(url)
  const { cut, restore } = outage(adminUrl, url)
  const { summarizer, arm } = cuttingSummarizer(cut)
  const errors: string[] = []
  const session = new LedgerSession({
    store,
    sessionId: 's',
    windowSize,
    summarize: summarizer,
    onError: (e) => errors.push(typed(e)),
  })
  return { session, store, arm, restore, errors }
}

const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: unknown) => typed(e),
  )

describe('the database goes away after a call committed its items (during the summary model call)', () => {
  it('addItems resolves once its items are stored, tells onError, and the window is bounded at the next read', async () => {
    const { session, store, arm, restore, errors } = await setup(4)
    await session.addItems(turn('0'))
    const items = [user('again?'), said('yes'), user('and?'), said('done')]
    arm()
    // The items were committed before the summary model ran: the runner must not see a failure (it would
    // take the run as failed, and a retry would store the turn twice).
    expect(await outcome(session.addItems(items))).toBe('resolved')
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.every((c) => !c.startsWith('not a'))).toBe(true)
    await restore()
    expect([...(await occurrences(store, 's', items)).values()]).toStrictEqual([1, 1, 1, 1])
    const shown = await session.getItems()
    expect(shown.length).toBeLessThanOrEqual(4)
    expect(providerProblems(shown)).toStrictEqual([])
  })

  it('a turn with a tool call: stored once, nothing for the caller to retry', async () => {
    const { session, store, arm, restore } = await setup(4)
    await session.addItems(turn('0'))
    const items = turn('1')
    arm()
    expect(await outcome(session.addItems(items))).toBe('resolved')
    await restore()
    expect([...(await occurrences(store, 's', items)).values()]).toStrictEqual([1, 1, 1, 1])
    expect(providerProblems(await session.getItems())).toStrictEqual([])
  })

  it('applyHistoryTransaction: resolves once applied, and a retry of the operation id is a no-op', async () => {
    const { session, store, arm, restore } = await setup(4)
    await session.addItems(turn('0'))
    const items = turn('1')
    const args = { operationId: 'op-1', transaction: { type: 'append_items' as const, items } }
    arm()
    expect(await outcome(session.applyHistoryTransaction(args))).toBe('resolved')
    await restore()
    await session.applyHistoryTransaction(structuredClone(args))
    expect([...(await occurrences(store, 's', items)).values()]).toStrictEqual([1, 1, 1, 1])
    expect(await markersOf(store, 's', 'op-1')).toBe(1)
    const shown = await session.getItems()
    expect(shown.length).toBeLessThanOrEqual(4)
    expect(providerProblems(shown)).toStrictEqual([])
  })

  it('replaceHistoryWithCompaction resolves once stored; the compaction is archived once', async () => {
    const { session, store, arm, restore } = await setup(4)
    await session.addItems([...turn('0'), ...turn('1')])
    // Enough retained items that the window is over its limit after the fold: the summary model runs.
    const compacted = [compaction('ENC'), user('r1'), said('r2'), user('r3'), said('r4')]
    arm()
    expect(await outcome(session.replaceHistoryWithCompaction(compacted))).toBe('resolved')
    await restore()
    const shown = await session.getItems()
    expect(providerProblems(shown)).toStrictEqual([])
    // Five retained items under windowSize 4: the limits may take the compaction item out too.
    expect(shown.length).toBeLessThanOrEqual(4)
    expect([...(await occurrences(store, 's', compacted)).values()]).toStrictEqual([1, 1, 1, 1, 1])
  })
})

describe('the summary model fails after a call committed its items (no outage at all)', () => {
  it('addItems resolves, the window is cut by eviction instead, and onError is told', async () => {
    const url = await database()
    const store = await open(url)
    let fail = false
    const summarizer: Summarizer = (messages) => {
      if (fail) {
        fail = false
        throw new Error('rate limited')
      }
      return { text: `summary of ${messages.length}`, model: 'scripted' }
    }
    const errors: string[] = []
    const session = new LedgerSession({
      store,
      sessionId: 's',
      windowSize: 4,
      summarize: summarizer,
      onError: (e) => errors.push(typed(e)),
    })
    await session.addItems(turn('0'))
    const items = [user('again?'), said('yes'), user('and?'), said('done')]
    fail = true
    expect(await outcome(session.addItems(items))).toBe('resolved')
    expect(errors).toStrictEqual(['SUMMARIZER_FAILED'])
    expect([...(await occurrences(store, 's', items)).values()]).toStrictEqual([1, 1, 1, 1])
    expect((await session.getItems()).length).toBeLessThanOrEqual(4)
  })
})

const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)

describe(
  `backends killed again and again while a session writes (seed ${SEED})`,
  { timeout: 180_000 },
  () => {
    it('applyHistoryTransaction retried with its operation id until it resolves: every operation applied exactly once, every error typed', async () => {
      const url = await database()
      const store = await open(url)
      const session = new LedgerSession({ store, sessionId: 's', windowSize: 10 })
      await session.addItems(turn('start'))
      const codes: string[] = []
      const appended: AgentInputItem[] = []
      let ops = 0
      // Cuts 60–310 ms apart: a write on a new connection (connect, plan, write: ~120 ms here) can finish
      // between two of them, so the test measures the store's retries, not the pace of the storm.
      const killer = storm(adminUrl, url, SEED, { min: 60, spread: 250 })
      let kills = 0
      try {
        // 25 operations at least, and on until the storm has cut the database 20 times.
        for (let i = 0; i < 25 || (killer.kills() < 20 && i < 400); i++) {
          const items = turn(`op${i}`)
          const args = { operationId: `op-${i}`, transaction: { type: 'append_items' as const, items } }
          await untilDone(() => session.applyHistoryTransaction(structuredClone(args)), codes, 200)
          appended.push(...items)
          ops++
        }
      } finally {
        kills = await killer.stop()
      }
      // The storm reached the store: connections were ended under its calls, not only between them.
      expect(kills).toBeGreaterThanOrEqual(20)
      expect(store.stats.reconnects + codes.length).toBeGreaterThan(0)
      expect(codes.filter((c) => !['STORAGE_ERROR', 'DATABASE_BUSY'].includes(c))).toStrictEqual([])
      const counts = await occurrences(store, 's', appended)
      expect([...counts].filter(([, n]) => n !== 1)).toStrictEqual([])
      for (let i = 0; i < ops; i++) expect(await markersOf(store, 's', `op-${i}`)).toBe(1)
      expect(providerProblems(await session.getItems())).toStrictEqual([])
    })

    it('popItem and clearSession under kills: every error typed, the input valid, nothing lost from the archive', async () => {
      const url = await database()
      const store = await open(url)
      const session = new LedgerSession({ store, sessionId: 's', windowSize: 12 })
      const codes: string[] = []
      const added: AgentInputItem[] = []
      const killer = storm(adminUrl, url, SEED + 1, { min: 60, spread: 250 })
      let kills = 0
      try {
        // 12 rounds at least, and on until the storm has cut the database 20 times.
        for (let i = 0; i < 12 || (killer.kills() < 20 && i < 400); i++) {
          const items = turn(`p${i}`)
          const args = { operationId: `p-${i}`, transaction: { type: 'append_items' as const, items } }
          await untilDone(() => session.applyHistoryTransaction(structuredClone(args)), codes, 200)
          added.push(...items)
          if (i % 3 === 0) await session.popItem().catch((e: unknown) => codes.push(typed(e)))
          if (i % 7 === 6) await session.clearSession().catch((e: unknown) => codes.push(typed(e)))
          const shown = await untilDone(() => session.getItems(), codes, 200)
          expect(providerProblems(shown)).toStrictEqual([])
        }
      } finally {
        kills = await killer.stop()
      }
      // The storm reached the store: connections were ended under its calls, not only between them.
      expect(kills).toBeGreaterThanOrEqual(20)
      expect(store.stats.reconnects + codes.length).toBeGreaterThan(0)
      expect(codes.filter((c) => !['STORAGE_ERROR', 'DATABASE_BUSY'].includes(c))).toStrictEqual([])
      const counts = await occurrences(store, 's', added)
      expect([...counts].filter(([, n]) => n !== 1)).toStrictEqual([])
      expect((await archive(store, 's')).length).toBeGreaterThanOrEqual(added.length)
    })
  },
)
