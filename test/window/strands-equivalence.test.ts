/**
 * With no pins, no protected ranges and no token budget, the SQL window must equal what Strands 1.19's
 * SlidingWindowConversationManager keeps — run here for real, on the same conversations — after every
 * invocation and on every overflow reduction (with shouldTruncateResults false). Where Strands gives up
 * (no valid trim point) and ours cuts at the latest trim point instead, the Strands array is resynced to
 * ours and the comparison goes on.
 */
import fc from 'fast-check'
import {
  AfterInvocationEvent,
  configureLogging,
  ContextWindowOverflowError,
  Message,
  SlidingWindowConversationManager,
} from '@strands-agents/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StoredMessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { conversation } from '../helpers/conversations.js'
import { assistant, toolResult, toolUse, user } from '../helpers/messages.js'
import { fcRuns } from '../helpers/runs.js'

type Hook = (event: { agent: { messages: Message[] } }) => void

/** Drives the real Strands manager on a bare `{ messages }` agent, as its own tests do. */
class StrandsDriver {
  readonly agent: { messages: Message[]; addHook: (event: unknown, cb: Hook) => void }
  private afterInvocation: Hook | undefined
  constructor(readonly manager: SlidingWindowConversationManager) {
    this.agent = {
      messages: [],
      addHook: (event, cb) => {
        if (event === AfterInvocationEvent) this.afterInvocation = cb
      },
    }
    manager.initAgent(this.agent as never)
  }
  invoke(): void {
    this.afterInvocation?.({ agent: this.agent })
  }
  overflow(): boolean {
    return this.manager.reduce({
      agent: this.agent as never,
      model: undefined as never,
      error: new ContextWindowOverflowError('too long'),
    })
  }
  ids(): string[] {
    return this.agent.messages.map((m) => m.trackingId)
  }
}

// Strands logs every declined trim; the comparison, not the log, is what this test is about.
const quiet = (): void => undefined
configureLogging({ debug: quiet, info: quiet, warn: quiet, error: quiet })

// The conformance suite: the same differential on the backend the project selects.
const backend = makeBackend()
let store: LedgerStore
let session = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const step = fc.record({
  take: fc.integer({ min: 1, max: 7 }),
  action: fc.constantFrom('invoke', 'invoke', 'overflow', 'none'),
})

describe(`PersistentConversationManager [${BACKEND}]`, () => {
  describe('applyWindow and reduce', () => {
    it('keep exactly what Strands 1.19 SlidingWindowConversationManager keeps when nothing is protected', async () => {
      await fc.assert(
        fc.asyncProperty(
          // Sessions that open with an assistant message are left out: their greeting goes straight to the
          // archive here (no window can start with it), while Strands keeps it at the front.
          conversation(30, { greetings: false }),
          fc.array(step, { minLength: 1, maxLength: 60 }),
          fc.integer({ min: 1, max: 12 }),
          async (messages, steps, windowSize) => {
            const sessionId = `eq-${session++}`
            const ours = backend.manager(store, { sessionId, windowSize })
            const strands = new StrandsDriver(
              new SlidingWindowConversationManager({ windowSize, shouldTruncateResults: false }),
            )
            let next = 0
            for (const s of steps) {
              const batch = messages.slice(next, next + s.take)
              next += batch.length
              if (batch.length > 0) {
                await ours.append(batch)
                strands.agent.messages.push(...batch.map((m) => Message.fromJSON(m as never)))
              }
              if (s.action === 'none') continue
              const result =
                s.action === 'invoke' ? await ours.applyWindow() : await ours.reduce({ overflow: true })
              const reduced = s.action === 'invoke' ? (strands.invoke(), undefined) : strands.overflow()
              const window = (await ours.window()).map((m) => m.trackingId)
              if (result.cut === 'latest-trim-point') {
                // Strands found no valid trim point and kept everything; we cut earlier. Resync.
                expect(reduced === undefined || !reduced).toBe(true)
                strands.agent.messages = (await ours.window()).map((m) => Message.fromJSON(m as never))
                continue
              }
              expect(window).toStrictEqual(strands.ids())
              if (reduced !== undefined) expect(reduced).toBe(result.evicted > 0)
            }
          },
        ),
        { numRuns: fcRuns(60) },
      )
    })

    const alt = (n: number): StoredMessageData[] =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: [{ text: `m${i}` }],
        trackingId: `m${i}`,
      }))
    const tu = (id: string, k: string): StoredMessageData => ({ ...toolUse(k), trackingId: id })
    const tr = (id: string, k: string): StoredMessageData => ({ ...toolResult(k, 'r'), trackingId: id })
    const u = (id: string): StoredMessageData => ({ ...user(id), trackingId: id })
    const a = (id: string): StoredMessageData => ({ ...assistant(id), trackingId: id })
    const review = [u('Review'), tu('tu1', '1'), tr('tr1', '1'), tu('tu2', '2'), tr('tr2', '2')]
    const lastRound = [...review, tu('tu3', '3'), tr('tr3', '3'), a('end')]
    // The scenarios Strands documents for its sliding window: (what, messages, windowSize, step, window).
    const scenarios: [string, StoredMessageData[], number, 'invoke' | 'overflow', string[]][] = [
      ['an invocation keeps the newest windowSize messages', alt(4), 2, 'invoke', ['m2', 'm3']],
      [
        'an invocation cuts at the next user message when windowSize would start on an assistant one',
        alt(9),
        8,
        'invoke',
        ['m2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'],
      ],
      ['an overflow over windowSize cuts down to it', alt(5), 3, 'overflow', ['m2', 'm3', 'm4']],
      ['an overflow within windowSize still lets the oldest turn go', alt(3), 5, 'overflow', ['m2']],
      [
        'an overflow cuts past a leading tool pair and reply to the next user message',
        [tu('tu1', '1'), tr('tr1', '1'), a('a'), u('Message')],
        2,
        'overflow',
        ['Message'],
      ],
      [
        'an overflow prefers a plain user trim point to a later tool pair',
        [u('u0'), a('a1'), u('Plain'), tu('tu1', '1'), tr('tr1', '1'), a('a5')],
        4,
        'overflow',
        ['Plain', 'tu1', 'tr1', 'a5'],
      ],
      [
        'an overflow with no trim point that fits keeps the user message and the latest tool round',
        lastRound,
        4,
        'overflow',
        ['Review', 'tu3', 'tr3', 'end'],
      ],
      [
        'an invocation with no trim point that fits keeps the user message and the latest tool round',
        lastRound,
        4,
        'invoke',
        ['Review', 'tu3', 'tr3', 'end'],
      ],
    ]
    it.each(scenarios)('matches Strands: %s', async (_what, messages, windowSize, step, expected) => {
      const m = backend.manager(store, { sessionId: `sw-${session++}`, windowSize })
      await m.append(messages)
      if (step === 'invoke') await m.applyWindow()
      else await m.reduce({ overflow: true })
      expect((await m.window()).map((x) => x.trackingId)).toStrictEqual(expected)
    })
  })
})
