/**
 * The SDK's own `MemorySession` as the oracle where the window does not apply: random sequences of
 * `addItems`, `getItems(limit?)`, `popItem`, `clearSession` and history transactions (fresh, retried,
 * stale, reused ids) run on both, and after every step both hand back the same items, pop the same item
 * and refuse the same calls. Tool calls come with their results in one `addItems` (as the runner writes a
 * turn), and a pop or a replaced suffix never splits a call from its result, so the ledger's rules for a
 * provider-valid window (repair rows, unpaired results) never differ from what MemorySession keeps.
 * Every session opens with a user message, as the runner's do: the ledger never shows what precedes a
 * session's first prompt (a window opens with one), where MemorySession would.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MemorySession, type AgentInputItem } from '@openai/agents'
import { LedgerSession } from '../../../src/adapters/openai-agents/index.js'
import { openContextStore } from '../../../src/index.js'
import { fcRuns } from '../../helpers/runs.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { json } from './helpers.js'

const dir = useTempDir('context-ledger-oa-oracle-')

type Op =
  | { kind: 'add'; items: AgentInputItem[] }
  | { kind: 'get'; limit: number | undefined }
  | { kind: 'pop' }
  | { kind: 'clear' }
  | { kind: 'append-tx'; id: number; items: AgentInputItem[] }
  | { kind: 'replace-tx'; id: number; take: number; items: AgentInputItem[]; stale: boolean }

const user = (t: string) => ({ type: 'message', role: 'user', content: t }) as AgentInputItem
const said = (t: string) =>
  ({
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: t }],
  }) as AgentInputItem
let calls = 0
let runs = 0
const turn = (t: string, withCall: boolean): AgentInputItem[] => {
  const id = `c${calls++}`
  return withCall
    ? [
        user(t),
        {
          type: 'function_call',
          callId: id,
          name: 'f',
          arguments: `{"t":"${t}"}`,
          status: 'completed',
        },
        {
          type: 'function_call_result',
          callId: id,
          name: 'f',
          status: 'completed',
          output: `out ${t}`,
        },
        said(`re ${t}`),
      ]
    : [user(t), said(`re ${t}`)]
}

const word = fc.stringMatching(/^[a-z]{1,6}$/)
const items = fc.tuple(word, fc.boolean()).map(([t, c]) => turn(t, c))
const messages = fc.array(fc.oneof(word.map(user), word.map(said)), { minLength: 1, maxLength: 3 })
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: items.map((i) => ({ kind: 'add' as const, items: i })), weight: 4 },
  {
    arbitrary: fc
      .option(fc.integer({ min: -1, max: 6 }), { nil: undefined })
      .map((limit) => ({ kind: 'get' as const, limit })),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'pop' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 4 }), messages)
      .map(([id, i]) => ({ kind: 'append-tx' as const, id, items: i })),
    weight: 2,
  },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 }), messages, fc.boolean())
      .map(([id, take, i, stale]) => ({ kind: 'replace-tx' as const, id, take, items: i, stale })),
    weight: 2,
  },
)

/** Whether the newest `k` items can be taken without splitting a call from its result. */
const cleanCut = (items: readonly AgentInputItem[], k: number): boolean => {
  const cut = items.length - k
  if (cut < 0) return false
  const before = new Set(
    items
      .slice(0, cut)
      .flatMap((i) =>
        (i as { type?: string }).type === 'function_call' ? [(i as { callId: string }).callId] : [],
      ),
  )
  return !items
    .slice(cut)
    .some(
      (i) =>
        (i as { type?: string }).type === 'function_call_result' &&
        before.has((i as { callId: string }).callId),
    )
}

const outcome = async <T>(p: Promise<T>): Promise<{ ok: T } | { failed: true }> =>
  p.then(
    (ok) => ({ ok }),
    () => ({ failed: true as const }),
  )

describe('LedgerSession against MemorySession', () => {
  it('gives back, pops and refuses the same as the SDK own session, step by step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const store = openContextStore(dir.file(`oracle-${runs++}.db`))
        try {
          const ledger = new LedgerSession({ store, sessionId: 's', windowSize: 10_000 })
          const memory = new MemorySession()
          const applied = new Map<number, string>()
          for (const s of [ledger, memory]) await s.addItems([user('hello')])
          for (const o of ops) {
            const current = await memory.getItems()
            if (o.kind === 'add') {
              await ledger.addItems(structuredClone(o.items))
              await memory.addItems(structuredClone(o.items))
            } else if (o.kind === 'get') {
              expect(json(await ledger.getItems(o.limit))).toStrictEqual(json(await memory.getItems(o.limit)))
            } else if (o.kind === 'pop') {
              if (!cleanCut(current, 1)) continue
              expect(json(await ledger.popItem())).toStrictEqual(json(await memory.popItem()))
            } else if (o.kind === 'clear') {
              await ledger.clearSession()
              // MemorySession forgets its applied operations on clear; the ledger keeps them. Same for both
              // from here on: ids are not reused after a clear.
              await memory.clearSession()
              for (const k of applied.keys()) applied.set(k, 'cleared')
            } else {
              if (applied.get(o.id) === 'cleared') continue
              const transaction =
                o.kind === 'append-tx'
                  ? { type: 'append_items' as const, items: o.items }
                  : {
                      type: 'replace_suffix' as const,
                      expectedSuffix: o.stale ? [said('never said')] : current.slice(-o.take),
                      replacement: o.items,
                    }
              if (o.kind === 'replace-tx' && !o.stale && !cleanCut(current, o.take)) continue
              const args = { operationId: `op-${o.id}`, transaction }
              const a = await outcome(ledger.applyHistoryTransaction(structuredClone(args)))
              const b = await outcome(memory.applyHistoryTransaction(structuredClone(args)))
              expect('failed' in a).toBe('failed' in b)
              if ('ok' in b) applied.set(o.id, 'applied')
            }
            expect(json(await ledger.getItems())).toStrictEqual(json(await memory.getItems()))
          }
        } finally {
          store.close()
        }
      }),
      { numRuns: fcRuns(40) },
    )
  })
})
