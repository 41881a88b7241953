/**
 * Random conversations — text turns, single and parallel tool calls, greetings before the first user
 * message, pins (refused on a message no window can show), protected ranges, window
 * sizes, budgets, window replacements, and managers with other protected ranges — driven through the SQL
 * store. After every step the SQL window equals what the pure `planWindow` computes from the same ledger
 * and prior state, and every window rule (docs/design.md, "Window rules") holds. The store trusts its bookkeeping (kept totals, recheck
 * marks); `planWindow` derives protection from scratch every time, so this also checks the bookkeeping.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  estimateTokens,
  planWindow,
  type ContentBlockData,
  type MessageData,
  type StoredMessageData,
} from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { conversation, firstPlainUser } from '../helpers/conversations.js'
import { assertProgress, assertStepRulesOf } from '../helpers/window-rules.js'
import { fcRuns } from '../helpers/runs.js'
import { refusalOf } from '../helpers/refusal.js'

// The conformance suite: the same properties on the backend the project selects (test/helpers/backend.ts).
const backend = makeBackend()
let store: LedgerStore
let session = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const op = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('append' as const), take: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('apply' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reduce' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(),
      size: fc.integer({ min: 1, max: 1200 }),
      clear: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ranges' as const),
      first: fc.integer({ min: 0, max: 3 }),
      last: fc.integer({ min: 0, max: 3 }),
    }),
  },
)

/** The message with every text and tool result of `size` characters: what a window replacement may be. */
function replacement(message: StoredMessageData, size: number): MessageData {
  const content = message.content.map((block): ContentBlockData => {
    if ('text' in block) return { text: 'r'.repeat(size) }
    if ('toolResult' in block)
      return { toolResult: { ...block.toolResult, content: [{ text: 'r'.repeat(size) }] } }
    return block
  })
  return { ...message, content }
}

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
  /** What the window counts for each message (its replacement's tokens where it shows one). */
  windowTokens: (number | undefined)[]
  /** `windowTokens`, or the message's own tokens. */
  effective: number[]
  boundary: number
  kept: number[]
  window: number[]
}

async function snapshot(m: LedgerManager): Promise<Snapshot> {
  const entries = await m.history({ limit: 100_000 })
  const boundary = (await m.store.session(m.sessionId))?.boundary ?? 0
  return {
    archive: entries.map((e) => e.message),
    pinned: entries.map((e) => e.pinned),
    tokens: entries.map((e) => e.tokens),
    windowTokens: entries.map((e) =>
      e.windowMessage === undefined ? undefined : estimateTokens(e.windowMessage),
    ),
    effective: entries.map((e) =>
      e.windowMessage === undefined ? e.tokens : estimateTokens(e.windowMessage),
    ),
    boundary,
    kept: entries.filter((e) => e.inWindow && e.seq < boundary).map((e) => e.seq),
    window: entries.filter((e) => e.inWindow).map((e) => e.seq),
  }
}

describe(`PersistentConversationManager [${BACKEND}]`, () => {
  describe('window', () => {
    it('equals planWindow on the same ledger and keeps every window rule, step after step', async () => {
      await fc.assert(
        fc.asyncProperty(
          conversation(20),
          fc.array(op, { minLength: 1, maxLength: 50 }),
          config,
          async (messages, ops, cfg) => {
            const sessionId = `prop-${session++}`
            const manager = (first: number, last: number): LedgerManager =>
              backend.manager(store, {
                sessionId,
                windowSize: cfg.windowSize,
                tokenBudget: cfg.tokenBudget,
                protectedMessages: { first, last },
              })
            let m = manager(cfg.first, cfg.last)
            // The ranges the window was last planned with: a manager with other ranges changes the window
            // only when it applies them (the last one to apply decides, as documented).
            let inForce = m.limits
            let next = 0
            for (const o of ops) {
              const before = await snapshot(m)
              let result
              if (o.kind === 'append') {
                const batch = messages.slice(next, next + o.take)
                next += batch.length
                if (batch.length > 0) await m.append(batch)
              } else if (o.kind === 'apply' || o.kind === 'reduce') {
                result = o.kind === 'apply' ? await m.applyWindow() : await m.reduce({ overflow: true })
                inForce = m.limits
                const expected = planWindow(before.archive, {
                  windowSize: cfg.windowSize,
                  tokenBudget: cfg.tokenBudget,
                  protectedMessages: { first: m.limits.first, last: m.limits.last },
                  state: { boundary: before.boundary, kept: before.kept },
                  mode: o.kind === 'apply' ? 'apply' : 'overflow',
                  tokens: before.tokens,
                  pinned: before.pinned,
                  windowTokens: before.windowTokens,
                })
                const { indices: _i, messages: windowMessages, state: _s, kept: _k, ...plan } = expected
                expect(result).toStrictEqual(plan)
                expect((await m.window()).map((x) => x.trackingId)).toStrictEqual(
                  windowMessages.map((x) => x.trackingId),
                )
              } else if (o.kind === 'ranges') {
                m = manager(o.first, o.last)
              } else if (before.archive.length > 0) {
                const seq = o.at % before.archive.length
                if (o.kind === 'pin' && seq < firstPlainUser(before.archive)) {
                  // No window can show it (validity before protection): the pin is refused, not ignored.
                  const error = await refusalOf(() => m.pin({ seq }, { actor: 'agent', reason: 'property' }))
                  expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', 'ref'])
                } else if (o.kind === 'pin') await m.pin({ seq }, { actor: 'agent', reason: 'property' })
                else if (o.kind === 'unpin') await m.unpin({ seq })
                else
                  await m.setWindowContent(
                    { seq },
                    o.clear ? null : replacement(before.archive[seq] as StoredMessageData, o.size),
                  )
              }
              const after = await snapshot(m)
              const check = {
                store,
                sessionId: m.sessionId,
                archive: after.archive,
                tokens: after.effective,
                windowSeqs: after.window,
                limits: inForce,
                result: o.kind === 'apply' || o.kind === 'reduce' ? result : undefined,
                mode: o.kind === 'apply' ? ('apply' as const) : ('overflow' as const),
                previousBoundary: before.boundary,
              }
              const protectedSeqs = await assertStepRulesOf(check)
              // Protection: every pinned message is in the window (the checker also says so), whatever
              // the session opens with — greetings before its first user message included.
              const shown = new Set(after.window)
              expect(after.pinned.flatMap((p, s) => (p && !shown.has(s) ? [s] : []))).toStrictEqual([])
              if (o.kind === 'reduce')
                assertProgress({
                  ...check,
                  before: before.window,
                  boundaryBefore: before.boundary,
                  protectedSeqs,
                })
              // What window() returns is the materialized form of exactly these rows.
              expect((await m.window()).map((x) => x.trackingId)).toStrictEqual(
                after.window.map((s) => after.archive[s]?.trackingId),
              )
            }
            // Archive complete and byte-identical.
            expect((await snapshot(m)).archive.map((x) => JSON.stringify(x))).toStrictEqual(
              messages.slice(0, next).map((x) => JSON.stringify(x)),
            )
          },
        ),
        // PostgreSQL answers in milliseconds where SQLite takes microseconds: fewer runs there, the same checks.
        { numRuns: fcRuns(BACKEND === 'postgres' ? 40 : 80) },
      )
    })
  })
})
