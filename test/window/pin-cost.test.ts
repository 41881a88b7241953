/**
 * Pins must not make each other slower. A pin of an evicted message, an unpin, an append followed by
 * `applyWindow()`, and a reduction must do the same SQL work whether the session holds 100 pins or ten
 * times as many: the kept rows are trusted as the protected set before the boundary (a count and a token
 * total), and only what changed is looked at. Work is counted, not timed (see
 * `test/helpers/statement-counter.ts`); `npm run bench` has the timings. Rows returned do not show
 * what a statement walks to find them: the golden query plans (`test/store/query-plans.test.ts`) pin each
 * one to an index seek, and the statements that read every kept row to the paths that re-derive them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PersistentConversationManager, type ContextStore, type MessageData } from '../../src/index.js'
import { countStatements, type StatementCounter, type Work } from '../helpers/statement-counter.js'
import { tempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'

let store: ContextStore
let cleanup: () => void
let counter: StatementCounter
beforeAll(() => {
  ;({ store, cleanup } = tempStore())
  counter = countStatements(store)
})
afterAll(() => {
  cleanup()
})

/** One agent turn: a question, a tool call, its result, an answer. */
function turn(k: number): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${k}` }] },
    { role: 'assistant', content: [{ toolUse: { toolUseId: `c${k}`, name: 'lookup', input: { k } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${k}`, status: 'success', content: [{ text: `r${k}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${k}` }] },
  ]
}

const TURNS = 1300
const LIMITS = { windowSize: 12, tokenBudget: 400, protectedMessages: { first: 2, last: 2 } }

/** Work of each steady operation in a session holding `pins` pins (every other one a tool call). */
function workAt(sessionId: string, pins: number): Record<string, Work> {
  const m = new PersistentConversationManager({ store, sessionId, ...LIMITS })
  for (let t = 0; t < TURNS; t += 100) {
    m.append(Array.from({ length: 100 }, (_, i) => turn(t + i)).flat())
    m.applyWindow()
  }
  // Pin evicted messages: alternately a question and a tool call (which brings its result along).
  const pinSeq = (i: number): number => 4 * (i + 1) + (i % 2 === 0 ? 0 : 1)
  for (let i = 0; i < pins; i++) m.pin({ seq: pinSeq(i) })
  m.applyWindow()
  let next = TURNS
  const work: Record<string, Work> = {
    pin: counter.measure(() => m.pin({ seq: pinSeq(pins) + 1 })),
    pinToolCall: counter.measure(() => m.pin({ seq: pinSeq(pins + 1) })),
    appendAndApply: counter.measure(() => {
      m.append(turn(next++))
      m.applyWindow()
    }),
    unpin: counter.measure(() => m.unpin({ seq: pinSeq(pins - 1) })),
    applyAfterUnpin: counter.measure(() => {
      m.append(turn(next++))
      m.applyWindow()
    }),
    reduce: counter.measure(() => m.reduce({ overflow: true })),
  }
  assertWindowRules(store, sessionId, LIMITS.protectedMessages)
  return work
}

describe('pins', () => {
  it('cost the same work at 100 and at 1,000 pins: pin, unpin, append + applyWindow, reduce', () => {
    const few = workAt('few', 100)
    const many = workAt('many', 1000)
    if (process.env.SHOW_WORK) console.log(JSON.stringify({ few, many }, null, 1))
    for (const op of Object.keys(few)) {
      const a = few[op] as Work
      const b = many[op] as Work
      // Equal up to a few statements: nothing may grow with the number of pins.
      expect(b.statements, `${op}: statements`).toBeLessThanOrEqual(a.statements + 2)
      expect(b.rows + b.bound, `${op}: rows read and seqs bound`).toBeLessThanOrEqual(a.rows + a.bound + 4)
    }
  })
})
