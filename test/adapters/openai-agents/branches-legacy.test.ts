/**
 * Sessions written before branches, and a restart in a second process (SQLite files).
 *
 * `test/fixtures/oa-markers.sqlite` was written by commit bef4590, when `popItem`, `clearSession` and
 * `replace_suffix` wrote withdrawal marker rows (`make-oa-markers-fixture.ts`). Opened by the current code
 * it reads exactly as it did (`getItems()`, the archive, the applied operations: retries are no-ops,
 * nothing migrated); pops and replaces that now rewind it cross those markers and keep what they hid
 * hidden — compared with `MemorySession` given what the model saw — and never bring back what a clear hid.
 *
 * A second process opens a file a first one popped and replaced in: it reads the same items and the
 * same branch tree, retries an applied operation (no-op) and replaces again; the first process, opened
 * again, carries on from there.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MemorySession, type AgentInputItem } from '@openai/agents'
import { LedgerSession } from '../../../src/adapters/openai-agents/index.js'
import { openContextStore, type ContextStore } from '../../../src/index.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { json } from './helpers.js'

const dir = useTempDir('context-ledger-oa-legacy-')
const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'oa-markers.sqlite')

interface Expected {
  readonly items: AgentInputItem[]
  readonly archived: number
  readonly transactions: Parameters<LedgerSession['applyHistoryTransaction']>[0][]
}
const expected = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'oa-markers.expected.json'), 'utf8'),
) as Record<'legacy' | 'legacy-narrow' | 'legacy-parallel', Expected>

/** A copy of the fixture, opened. */
function fixture(): ContextStore {
  const file = dir.file(`legacy-${Math.random().toString(36).slice(2)}.db`)
  copyFileSync(FIXTURE, file)
  return openContextStore(file)
}

const sessionOf = (store: ContextStore, sessionId: keyof typeof expected) =>
  new LedgerSession({ store, sessionId, windowSize: sessionId === 'legacy-narrow' ? 6 : 10_000 })

const plain = (item: AgentInputItem | undefined) => (item === undefined ? undefined : json(item))
const type = (item: AgentInputItem | undefined) => (item as { type?: string } | undefined)?.type

describe('a session written with withdrawal markers', () => {
  it('reads exactly as it did; applied operations are still applied', async () => {
    const store = fixture()
    try {
      for (const id of Object.keys(expected) as (keyof typeof expected)[]) {
        const session = sessionOf(store, id)
        expect(json(await session.getItems())).toStrictEqual(expected[id].items)
        expect((await session.history({ limit: 10_000 })).length).toBe(expected[id].archived)
        const before = store.history(id, { limit: 10_000 })
        for (const args of expected[id].transactions) await session.applyHistoryTransaction(args)
        expect(store.history(id, { limit: 10_000 })).toStrictEqual(before)
        expect(json(await session.getItems())).toStrictEqual(expected[id].items)
      }
    } finally {
      store.close()
    }
  })

  it('pops to the end across its markers as MemorySession would from what the model saw', async () => {
    const store = fixture()
    try {
      const session = sessionOf(store, 'legacy')
      const memory = new MemorySession({ initialItems: structuredClone(expected.legacy.items) })
      for (;;) {
        const mine = await session.popItem()
        const theirs = await memory.popItem()
        expect(plain(mine)).toStrictEqual(plain(theirs))
        // A popped result takes its call along (MemorySession pops it next).
        if (type(theirs) === 'function_call_result')
          expect(type(await memory.popItem())).toBe('function_call')
        expect(json(await session.getItems())).toStrictEqual(json(await memory.getItems()))
        if (mine === undefined) break
      }
      // The operations whose markers left are still known: retries change nothing.
      const rows = store.history('legacy', { limit: 10_000 })
      for (const args of expected.legacy.transactions) await session.applyHistoryTransaction(args)
      expect(store.history('legacy', { limit: 10_000 })).toStrictEqual(rows)
    } finally {
      store.close()
    }
  })

  it('keeps a call its popped result hid hidden when a replace crosses that marker', async () => {
    const store = fixture()
    try {
      const session = sessionOf(store, 'legacy-parallel')
      const memory = new MemorySession({ initialItems: structuredClone(expected['legacy-parallel'].items) })
      const last = expected['legacy-parallel'].items.at(-1) as AgentInputItem
      const fixed = { ...(last as object), output: 'out p1, checked' } as AgentInputItem
      const args = {
        operationId: 'fix-p1',
        transaction: { type: 'replace_suffix' as const, expectedSuffix: [last], replacement: [fixed] },
      }
      await session.applyHistoryTransaction(structuredClone(args))
      await memory.applyHistoryTransaction(structuredClone(args))
      expect(json(await session.getItems())).toStrictEqual(json(await memory.getItems()))
    } finally {
      store.close()
    }
  })

  it('never brings back what a clear hid, whatever the window does after a pop', async () => {
    const store = fixture()
    try {
      const session = sessionOf(store, 'legacy-narrow')
      const before = json(await session.getItems())
      expect(json(await session.popItem())).toStrictEqual(before.at(-1))
      for (let i = 0; i < 4; i++) await session.popItem()
      const after = JSON.stringify(await session.getItems())
      expect(after).not.toContain('before clear')
    } finally {
      store.close()
    }
  })
})

describe('a restart in a second process', () => {
  it('reads what the first wrote, retries and replaces; the first carries on from there', async () => {
    const file = dir.file('restart.db')
    const user = (text: string) => ({ type: 'message', role: 'user', content: text }) as AgentInputItem
    const said = (text: string) =>
      ({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text }],
      }) as AgentInputItem
    const first = {
      operationId: 'op-1',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [said('draft')],
        replacement: [said('a1')],
      },
    }
    let store = openContextStore(file)
    let session = new LedgerSession({ store, sessionId: 's' })
    await session.addItems([user('q1'), said('draft')])
    await session.applyHistoryTransaction(first)
    await session.addItems([user('q2'), said('wrong')])
    await session.popItem()
    const items = json(await session.getItems())
    const tree = await session.branches()
    store.close()

    const script = join(dir.path, 'second.mts')
    const src = join(process.cwd(), 'src')
    writeFileSync(
      script,
      `import { openContextStore } from '${src}/index.js'
import { LedgerSession } from '${src}/adapters/openai-agents/index.js'
const store = openContextStore(${JSON.stringify(file)})
const session = new LedgerSession({ store, sessionId: 's' })
const items = await session.getItems()
const tree = await session.branches()
await session.applyHistoryTransaction(${JSON.stringify(first)})
const retried = await session.getItems()
await session.applyHistoryTransaction({
  operationId: 'op-2',
  transaction: { type: 'replace_suffix', expectedSuffix: [items.at(-1)], replacement: [${JSON.stringify(user('q2, asked better'))}] },
})
process.stdout.write(JSON.stringify({ items, tree, retried, after: await session.getItems() }))
store.close()
`,
    )
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(child.stderr).toBe('')
    const seen = JSON.parse(child.stdout) as {
      items: unknown
      tree: unknown
      retried: unknown
      after: unknown
    }
    expect(seen.items).toStrictEqual(items)
    expect(seen.tree).toStrictEqual(json(tree))
    expect(seen.retried).toStrictEqual(items)
    expect(seen.after).toStrictEqual(json([user('q1'), said('a1'), user('q2, asked better')]))

    store = openContextStore(file)
    session = new LedgerSession({ store, sessionId: 's' })
    try {
      expect(json(await session.getItems())).toStrictEqual(seen.after)
      await session.addItems([said('a2')])
      const reasons = (await session.branches()).map((b) => b.reason)
      // The popped item's branch hangs under the second replace's: it rewound to before it.
      expect(reasons).toStrictEqual([
        null,
        'replace_suffix (operation op-1)',
        'replace_suffix (operation op-2)',
        'popItem',
      ])
    } finally {
      store.close()
    }
  })
})
