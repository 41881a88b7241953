/**
 * Random conversations — text turns, single and parallel tool calls, pins, protected ranges, window
 * sizes, budgets — driven through the SQL store. After every step the SQL window equals what the pure
 * `planWindow` computes from the same ledger and prior state, and every DESIGN §4 rule holds.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  planWindow,
  type ContextStore,
  type StoredMessageData,
} from '../../src/index.js'
import { conversation } from '../helpers/conversations.js'
import { tempStore } from '../helpers/temp-store.js'
import { expectProgress, expectWindowRules } from './window-rules.js'

let store: ContextStore
let cleanup: () => void
let session = 0
beforeAll(() => {
  ;({ store, cleanup } = tempStore())
})
afterAll(() => cleanup())

const op = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('append' as const), take: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('apply' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reduce' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat() }) },
)

const config = fc.record({
  windowSize: fc.integer({ min: 1, max: 14 }),
  tokenBudget: fc.option(fc.integer({ min: 20, max: 700 }), { nil: undefined }),
  first: fc.integer({ min: 0, max: 3 }),
  last: fc.integer({ min: 0, max: 3 }),
})

interface Snapshot {
  archive: StoredMessageData[]
  pinned: boolean[]
  tokens: number[]
  boundary: number
  kept: number[]
  window: number[]
}

function snapshot(m: PersistentConversationManager): Snapshot {
  const entries = m.history({ limit: 100_000 })
  const boundary = m.store.session(m.sessionId)?.boundary ?? 0
  return {
    archive: entries.map((e) => e.message),
    pinned: entries.map((e) => e.pinned),
    tokens: entries.map((e) => e.tokens),
    boundary,
    kept: entries.filter((e) => e.inWindow && e.seq < boundary).map((e) => e.seq),
    window: entries.filter((e) => e.inWindow).map((e) => e.seq),
  }
}

describe('PersistentConversationManager', () => {
  describe('window', () => {
    it('equals planWindow on the same ledger and keeps every window rule, step after step', () => {
      fc.assert(
        fc.property(
          conversation(20),
          fc.array(op, { minLength: 1, maxLength: 50 }),
          config,
          (messages, ops, cfg) => {
            const m = new PersistentConversationManager({
              store,
              sessionId: `prop-${session++}`,
              windowSize: cfg.windowSize,
              tokenBudget: cfg.tokenBudget,
              protectedMessages: { first: cfg.first, last: cfg.last },
            })
            let next = 0
            for (const o of ops) {
              const before = snapshot(m)
              let result
              if (o.kind === 'append') {
                const batch = messages.slice(next, next + o.take)
                next += batch.length
                if (batch.length > 0) m.append(batch)
              } else if (o.kind === 'apply' || o.kind === 'reduce') {
                result = o.kind === 'apply' ? m.applyWindow() : m.reduce({ overflow: true })
                const expected = planWindow(before.archive, {
                  windowSize: cfg.windowSize,
                  tokenBudget: cfg.tokenBudget,
                  protectedMessages: { first: cfg.first, last: cfg.last },
                  state: { boundary: before.boundary, kept: before.kept },
                  mode: o.kind === 'apply' ? 'apply' : 'overflow',
                  tokens: before.tokens,
                  pinned: before.pinned,
                })
                const { indices: _i, messages: windowMessages, state: _s, kept: _k, ...plan } = expected
                expect(result).toStrictEqual(plan)
                expect(m.window().map((x) => x.trackingId)).toStrictEqual(
                  windowMessages.map((x) => x.trackingId),
                )
              } else if (before.archive.length > 0) {
                const seq = o.at % before.archive.length
                if (o.kind === 'pin') m.pin({ seq }, { actor: 'agent', reason: 'property' })
                else m.unpin({ seq })
              }
              const after = snapshot(m)
              const check = {
                store,
                sessionId: m.sessionId,
                archive: after.archive,
                tokens: after.tokens,
                windowSeqs: after.window,
                limits: m.limits,
                result: o.kind === 'apply' || o.kind === 'reduce' ? result : undefined,
                mode: o.kind === 'apply' ? ('apply' as const) : ('overflow' as const),
                previousBoundary: before.boundary,
              }
              const protectedSeqs = expectWindowRules(check)
              if (o.kind === 'reduce')
                expectProgress({
                  ...check,
                  before: before.window,
                  boundaryBefore: before.boundary,
                  protectedSeqs,
                })
              // What window() returns is the materialized form of exactly these rows.
              expect(m.window().map((x) => x.trackingId)).toStrictEqual(
                after.window.map((s) => after.archive[s]?.trackingId),
              )
            }
            // Archive complete and byte-identical.
            expect(snapshot(m).archive.map((x) => JSON.stringify(x))).toStrictEqual(
              messages.slice(0, next).map((x) => JSON.stringify(x)),
            )
          },
        ),
        { numRuns: Number(process.env.FC_RUNS ?? 200) },
      )
    })
  })
})
