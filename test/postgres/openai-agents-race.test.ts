/**
 * Adversarial: two `LedgerSession`s of one session on two PostgreSQL stores (two pools, so two session
 * queues: nothing in the process serializes them) racing `addItems`, `popItem`, `clearSession`,
 * `applyHistoryTransaction` (same and different operation ids) and `replaceHistoryWithCompaction`.
 * Promised (issue 23, docs/openai-agents.md): nothing added is lost from the archive, an operation is
 * applied once, `HISTORY_CONFLICT` changes nothing (a checksum of every row), and the model input is
 * provider-valid after every call.
 */
import { describe, expect, it } from 'vitest'
import type { AgentInputItem } from '@openai/agents'
import { LedgerSession } from '../../src/adapters/openai-agents/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import { providerProblems } from '../adapters/openai-agents/helpers.js'
import { pgLedgerChecksum } from './checksum.js'
import { useDatabases } from './databases.js'
import {
  compaction,
  markersOf,
  occurrences,
  said,
  turn,
  typed,
  user,
  archive,
} from './openai-agents-support.js'

const { database, open } = useDatabases()

type Session = LedgerSession<PostgresContextStore>

async function pair(
  options: { windowSize?: number } = {},
): Promise<{ a: Session; b: Session; sa: PostgresContextStore; sb: PostgresContextStore }> {
  const url = await database()
  const sa = await open(url)
  const sb = await open(url)
  return {
    sa,
    sb,
    a: new LedgerSession({ store: sa, sessionId: 's', ...options }),
    b: new LedgerSession({ store: sb, sessionId: 's', ...options }),
  }
}

/** Every item exactly once in the archive. */
async function everyOnce(store: PostgresContextStore, items: readonly AgentInputItem[]): Promise<void> {
  const counts = await occurrences(store, 's', items)
  const wrong = [...counts].filter(([, n]) => n !== 1)
  expect(wrong).toStrictEqual([])
}

describe('two stores racing one LedgerSession on PostgreSQL', () => {
  it('addItems × addItems × popItem × getItems: nothing lost, every input provider-valid', async () => {
    const { a, b, sa } = await pair({ windowSize: 14 })
    const added: AgentInputItem[] = []
    const problems: string[] = []
    const errors: string[] = []
    const writer = async (s: Session, who: string): Promise<void> => {
      for (let i = 0; i < 12; i++) {
        const items = turn(`${who}${i}`)
        await s.addItems(items).then(
          () => added.push(...items),
          (e: unknown) => errors.push(typed(e)),
        )
        if (i % 4 === 3) await s.popItem().catch((e: unknown) => errors.push(typed(e)))
        problems.push(...providerProblems(await s.getItems()).map((p) => `${who}${i}: ${p}`))
      }
    }
    await Promise.all([writer(a, 'a'), writer(b, 'b')])
    expect(errors).toStrictEqual([])
    expect(problems).toStrictEqual([])
    expect(added).toHaveLength(2 * 12 * 4)
    await everyOnce(sa, added)
    expect(providerProblems(await a.getItems())).toStrictEqual([])
    expect(await a.getItems()).toStrictEqual(await b.getItems())
  })

  it('the same operation ids applied from both stores at once: each applied once, both resolve', async () => {
    const { a, b, sa } = await pair()
    await a.addItems([user('start'), said('ok')])
    const appended: AgentInputItem[] = []
    for (let i = 0; i < 10; i++) {
      const items = [user(`op ${i}`), said(`op answer ${i}`)]
      const args = { operationId: `op-${i}`, transaction: { type: 'append_items' as const, items } }
      const settled = await Promise.allSettled([
        a.applyHistoryTransaction(args),
        b.applyHistoryTransaction(structuredClone(args)),
      ])
      expect(settled.map((r) => (r.status === 'fulfilled' ? 'ok' : typed(r.reason)))).toStrictEqual([
        'ok',
        'ok',
      ])
      appended.push(...items)
    }
    await everyOnce(sa, appended)
    for (let i = 0; i < 10; i++) expect(await markersOf(sa, 's', `op-${i}`)).toBe(1)
    expect(providerProblems(await b.getItems())).toStrictEqual([])
  })

  it('different operation ids from both stores at once: both applied, in some order, nothing lost', async () => {
    const { a, b, sa } = await pair({ windowSize: 10 })
    await a.addItems([user('start'), said('ok')])
    const appended: AgentInputItem[] = []
    for (let i = 0; i < 10; i++) {
      const ia = turn(`A${i}`)
      const ib = turn(`B${i}`)
      await Promise.all([
        a.applyHistoryTransaction({ operationId: `A${i}`, transaction: { type: 'append_items', items: ia } }),
        b.applyHistoryTransaction({ operationId: `B${i}`, transaction: { type: 'append_items', items: ib } }),
      ])
      appended.push(...ia, ...ib)
      expect(providerProblems(await a.getItems())).toStrictEqual([])
    }
    await everyOnce(sa, appended)
  })

  it('two replace_suffix of the same suffix under different ids: exactly one wins, the loser changes nothing', async () => {
    const { a, b, sa } = await pair()
    for (let i = 0; i < 6; i++) {
      await a.addItems([user(`q${i}`), said(`draft ${i}`)])
      const suffix = [said(`draft ${i}`)]
      const settled = await Promise.allSettled([
        a.applyHistoryTransaction({
          operationId: `ra${i}`,
          transaction: { type: 'replace_suffix', expectedSuffix: suffix, replacement: [said(`by a ${i}`)] },
        }),
        b.applyHistoryTransaction({
          operationId: `rb${i}`,
          transaction: { type: 'replace_suffix', expectedSuffix: suffix, replacement: [said(`by b ${i}`)] },
        }),
      ])
      const outcome = settled.map((r) => (r.status === 'fulfilled' ? 'ok' : typed(r.reason))).sort()
      expect(outcome).toStrictEqual(['HISTORY_CONFLICT', 'ok'])
      const winner = settled[0].status === 'fulfilled' ? 'a' : 'b'
      const shown = await b.getItems()
      expect(JSON.parse(JSON.stringify(shown.at(-1)))).toStrictEqual(
        JSON.parse(JSON.stringify(said(`by ${winner} ${i}`))),
      )
      expect(await markersOf(sa, 's', `r${winner === 'a' ? 'b' : 'a'}${i}`)).toBe(0)
      expect(providerProblems(shown)).toStrictEqual([])
    }
  })

  it('HISTORY_CONFLICT from the other store (id reused, stale suffix, summary suffix) leaves every row as it was', async () => {
    const { a, b, sa } = await pair({ windowSize: 6 })
    await a.addItems([...turn('1'), ...turn('2'), ...turn('3')])
    await a.applyHistoryTransaction({
      operationId: 'X',
      transaction: { type: 'append_items', items: [user('x'), said('x')] },
    })
    const conflicts = [
      () =>
        b.applyHistoryTransaction({
          operationId: 'X',
          transaction: { type: 'append_items', items: [user('y'), said('y')] },
        }),
      () =>
        b.applyHistoryTransaction({
          operationId: 'Y',
          transaction: { type: 'replace_suffix', expectedSuffix: [said('not there')], replacement: [] },
        }),
      () =>
        b.applyHistoryTransaction({
          operationId: 'Z',
          transaction: { type: 'replace_suffix', expectedSuffix: [user('x'), said('y')], replacement: [] },
        }),
    ]
    for (const conflict of conflicts) {
      const before = await pgLedgerChecksum(sa.pool)
      const error = await conflict().then(
        () => 'resolved',
        (e: unknown) => typed(e),
      )
      expect(error).toBe('HISTORY_CONFLICT')
      expect(await pgLedgerChecksum(sa.pool)).toBe(before)
    }
  })

  it('clearSession from one store while the other adds: nothing lost, the input valid, cleared items gone', async () => {
    const { a, b, sa } = await pair()
    const added: AgentInputItem[] = []
    for (let i = 0; i < 8; i++) {
      const items = turn(`c${i}`)
      await Promise.all([b.addItems(items), a.clearSession()])
      added.push(...items)
      const shown = await a.getItems()
      expect(providerProblems(shown)).toStrictEqual([])
      // Either the turn came after the clear (shown whole) or before (gone whole).
      expect([0, 4]).toContain(shown.length)
    }
    await everyOnce(sa, added)
  })

  it('replaceHistoryWithCompaction from one store while the other adds: nothing lost, the input starts at a compaction item and is valid', async () => {
    const { a, b, sa } = await pair({ windowSize: 20 })
    const added: AgentInputItem[] = []
    await a.addItems(turn('0'))
    for (let i = 1; i < 8; i++) {
      const items = turn(`k${i}`)
      const compacted = [compaction(`ENC${i}`), user(`retained ${i}`)]
      await Promise.all([b.addItems(items), a.replaceHistoryWithCompaction(compacted)])
      added.push(...items, ...compacted)
      const shown = await a.getItems()
      expect(providerProblems(shown)).toStrictEqual([])
      expect((shown[0] as { type?: string }).type).toBe('compaction')
    }
    await everyOnce(sa, added)
    const all = await archive(sa, 's')
    expect(all.filter((m) => m.includes('"type":"compaction"'))).toHaveLength(7)
  })
})
