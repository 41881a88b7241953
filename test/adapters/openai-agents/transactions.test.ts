/**
 * `applyHistoryTransaction` and compaction on either backend (a conformance-suite file). Each contract the
 * SDK states for a transaction-aware session is a test of its own: a retry with the same id and
 * transaction is a no-op, the same id with another transaction fails, a stale suffix fails, and a failed
 * transaction leaves the session exactly as it was (read back). Two connections racing one operation
 * apply it once; a session another writer keeps overtaking gives up after `ATTEMPTS` tries, with a typed
 * error. A compaction item — given by the runner's `replaceHistoryWithCompaction` or by
 * `OpenAIResponsesCompactionSession`'s clear-and-add — stands for what preceded it, which stays archived.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MemorySession, OpenAIResponsesCompactionSession, type AgentInputItem } from '@openai/agents'
import { LedgerSession, type LedgerSessionStore } from '../../../src/adapters/openai-agents/index.js'
import { ATTEMPTS } from '../../../src/adapters/openai-agents/transactions.js'
import { ContextLedgerError, type SummaryRecord } from '../../../src/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { json } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

async function opened(): Promise<{ handle: LedgerStore; session: LedgerSession<LedgerSessionStore> }> {
  const handle = await backend.open()
  return { handle, session: new LedgerSession({ store: coreStoreOf(handle), sessionId: 's' }) }
}

const user = (text: string) => ({ type: 'message', role: 'user', content: text }) as AgentInputItem
const said = (text: string) =>
  ({
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  }) as AgentInputItem

const code = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (e instanceof ContextLedgerError ? e.code : `not a ContextLedgerError: ${String(e)}`),
  )

describe('applyHistoryTransaction, on either backend', () => {
  it('appends, and a retry with the same id and transaction adds nothing', async () => {
    const { session } = await opened()
    const args = {
      operationId: 'op-1',
      transaction: { type: 'append_items' as const, items: [user('a'), said('b')] },
    }
    await session.applyHistoryTransaction(args)
    await session.applyHistoryTransaction(structuredClone(args))
    expect(json(await session.getItems())).toStrictEqual(json([user('a'), said('b')]))
  })

  it('replaces a matching suffix; the replaced items stay stored', async () => {
    const { handle, session } = await opened()
    const memory = new MemorySession()
    for (const s of [session, memory]) await s.addItems([user('a'), said('draft answer')])
    const args = {
      operationId: 'op-2',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [said('draft answer')],
        replacement: [said('final answer')],
      },
    }
    await session.applyHistoryTransaction(args)
    await memory.applyHistoryTransaction(structuredClone(args))
    expect(json(await session.getItems())).toStrictEqual(json(await memory.getItems()))
    await session.applyHistoryTransaction(structuredClone(args))
    expect(json(await session.getItems())).toStrictEqual(json(await memory.getItems()))
    // Still stored, once: in the abandoned branch the rewind made (on a store without branches, in the
    // session, withdrawn by a marker).
    expect((await handle.search('draft answer')).length).toBe(1)
  })

  it('refuses the same id with another transaction, and changes nothing', async () => {
    const { handle, session } = await opened()
    await session.applyHistoryTransaction({
      operationId: 'op',
      transaction: { type: 'append_items', items: [user('a')] },
    })
    const sum = await backend.checksum(handle)
    expect(
      await code(
        session.applyHistoryTransaction({
          operationId: 'op',
          transaction: { type: 'append_items', items: [user('b')] },
        }),
      ),
    ).toBe('HISTORY_CONFLICT')
    expect(await backend.checksum(handle)).toBe(sum)
    expect(json(await session.getItems())).toStrictEqual(json([user('a')]))
  })

  it('refuses a stale suffix, and changes nothing', async () => {
    const { handle, session } = await opened()
    await session.addItems([user('a'), said('b')])
    const sum = await backend.checksum(handle)
    const stale = {
      operationId: 'op',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [said('not b')],
        replacement: [said('c')],
      },
    }
    expect(await code(session.applyHistoryTransaction(stale))).toBe('HISTORY_CONFLICT')
    const tooLong = {
      operationId: 'op2',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [user('z'), user('a'), said('b')],
        replacement: [],
      },
    }
    expect(await code(session.applyHistoryTransaction(tooLong))).toBe('HISTORY_CONFLICT')
    expect(
      await code(
        session.applyHistoryTransaction({
          operationId: '',
          transaction: { type: 'append_items', items: [] },
        }),
      ),
    ).toBe('INVALID_OPTIONS')
    expect(
      await code(
        session.applyHistoryTransaction({
          operationId: 'op3',
          transaction: {
            type: 'append_items',
            items: [{ type: 'function_call', name: 'f' } as unknown as AgentInputItem],
          },
        }),
      ),
    ).toBe('INVALID_MESSAGE')
    expect(await backend.checksum(handle)).toBe(sum)
    expect(json(await session.getItems())).toStrictEqual(json([user('a'), said('b')]))
  })

  it('applies an operation once when two connections race it', async () => {
    const { handle, session } = await opened()
    await session.addItems([user('a'), said('draft')])
    const other = new LedgerSession({ store: coreStoreOf(await backend.reopen(handle)), sessionId: 's' })
    const args = {
      operationId: 'race',
      transaction: {
        type: 'replace_suffix' as const,
        expectedSuffix: [said('draft')],
        replacement: [said('final')],
      },
    }
    await Promise.all([
      session.applyHistoryTransaction(args),
      other.applyHistoryTransaction(structuredClone(args)),
    ])
    expect(json(await session.getItems())).toStrictEqual(json([user('a'), said('final')]))
    const finals = (await session.history({ limit: 100 })).filter((e) =>
      JSON.stringify(e.message).includes('final'),
    )
    expect(finals.length).toBe(1)
  })

  it('gives up with APPEND_CONFLICT after ATTEMPTS tries when another writer moves the session before each write', async () => {
    const { handle, session } = await opened()
    await session.addItems([user('a')])
    const other = coreStoreOf(await backend.reopen(handle)) as unknown as {
      append(sessionId: string, messages: unknown[]): unknown
    }
    const store = coreStoreOf(handle) as unknown as { windowEntries(...args: unknown[]): unknown }
    const read = store.windowEntries.bind(store)
    let moves = 0
    // Between the head the session reads and its guarded write, another connection appends a row (it
    // stops after twice the bound, so a retry that never gave up would end, writing, and fail the test).
    store.windowEntries = (...args) => {
      if (++moves > 2 * ATTEMPTS) return read(...args)
      const moved = other.append('s', [said(`other ${moves}`)])
      return moved instanceof Promise ? moved.then(() => read(...args)) : read(...args)
    }
    const args = {
      operationId: 'busy',
      transaction: { type: 'append_items' as const, items: [said('mine')] },
    }
    expect(await code(session.applyHistoryTransaction(args))).toBe('APPEND_CONFLICT')
    expect(moves).toBe(ATTEMPTS)
    store.windowEntries = read
    const stored = (await session.history({ limit: 100 })).map((e) => JSON.stringify(e.message))
    expect(stored.filter((m) => m.includes('mine'))).toStrictEqual([])
    expect(stored.filter((m) => m.includes('other')).length).toBe(ATTEMPTS)
    // Once the other writer stops, the same operation goes through.
    await session.applyHistoryTransaction(structuredClone(args))
    expect(json((await session.getItems()).at(-1))).toStrictEqual(json(said('mine')))
  })
})

describe('compaction, on either backend', () => {
  const compaction = { type: 'compaction', id: 'cmp_1', encrypted_content: 'opaque' } as AgentInputItem

  it('replaceHistoryWithCompaction: the compaction item stands for what came before, which stays archived', async () => {
    const { session } = await opened()
    for (let t = 0; t < 4; t++) await session.addItems([user(`question ${t}`), said(`answer ${t}`)])
    await session.replaceHistoryWithCompaction([compaction, user('next question')])
    const shown = json(await session.getItems()) as { type?: string }[]
    const at = shown.findIndex((i) => i.type === 'compaction')
    expect(at).toBeGreaterThanOrEqual(0)
    expect(shown.slice(at)).toStrictEqual(json([compaction, user('next question')]))
    const ledger = session.ledger as unknown as { summaries(): SummaryRecord[] | Promise<SummaryRecord[]> }
    const newest = (await ledger.summaries())[0]
    expect(newest?.messageCount).toBe(8)
    expect(newest?.model).toBe('openai-compaction')
    expect((await session.history({ limit: 100 })).length).toBe(10)
    expect(await code(session.replaceHistoryWithCompaction([user('no compaction first')]))).toBe(
      'INVALID_MESSAGE',
    )
  })

  it('OpenAIResponsesCompactionSession around a LedgerSession compacts and loses nothing', async () => {
    const { session } = await opened()
    for (let t = 0; t < 6; t++) await session.addItems([user(`question ${t}`), said(`answer ${t}`)])
    const requests: unknown[] = []
    const client = {
      responses: {
        compact: (request: unknown) => {
          requests.push(request)
          const kept = {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: 'question 5' }],
          }
          return Promise.resolve({
            output: [kept, compaction],
            usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
          })
        },
      },
    }
    const wrapped = new OpenAIResponsesCompactionSession({
      client: client as never,
      underlyingSession: session,
      model: 'gpt-5.2',
      compactionMode: 'input',
    })
    const result = await wrapped.runCompaction({ force: true, compactionMode: 'input' })
    expect(result).not.toBeNull()
    expect(requests.length).toBe(1)
    const shown = json(await session.getItems()) as { type?: string }[]
    expect(shown.at(-1)).toStrictEqual(json(compaction))
    const archive = (await session.history({ limit: 100 })).map((e) => JSON.stringify(e.message))
    for (let t = 0; t < 6; t++) expect(archive.some((m) => m.includes(`answer ${t}`))).toBe(true)
  })
})
