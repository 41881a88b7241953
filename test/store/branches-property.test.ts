/**
 * Random trees of branches on either backend (a conformance-suite file; docs/design.md, "Branches"): forks, rewinds, appends on either side
 * (whole turns, or a question and a call left open), pins, window applications (with a last-N range),
 * summaries and dropped summaries in any order. The model
 * treats a fork as a full copy of the parent's messages and pins up to the fork point, and a rewind as a
 * cut whose tail becomes a new session. After every step, every session's `history()` is the model's
 * list, its pins are the model's, and its window passes the window rules (read through the API).
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { ContextLedgerError, type MessageData, type StoredMessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { fcRuns } from '../helpers/runs.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { assertWindowRulesViaApi as assertWindowRulesThroughApi } from '../helpers/window-rules.js'

/** A step of a run; `at` picks a session, `seq` a message (both modulo what exists). */
type Step =
  | { kind: 'append'; at: number; whole: boolean }
  | { kind: 'fork'; at: number; seq: number }
  | { kind: 'rewind'; at: number; seq: number }
  | { kind: 'pin'; at: number; seq: number }
  | { kind: 'unpin'; at: number; seq: number }
  | { kind: 'apply'; at: number; size: number }
  | { kind: 'fold'; at: number; size: number }
  | { kind: 'drop'; at: number; size: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append'), at: fc.nat(), whole: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork'), at: fc.nat(), seq: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind'), at: fc.nat(), seq: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin'), at: fc.nat(), seq: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin'), at: fc.nat(), seq: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('apply'), at: fc.nat(), size: fc.integer({ min: 2, max: 8 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('fold'), at: fc.nat(), size: fc.integer({ min: 3, max: 8 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('drop'), at: fc.nat(), size: fc.integer({ min: 2, max: 8 }) }),
  },
)

/**
 * A run that folds in a branch whatever the random runs do: three turns in the root, a fork at the last
 * answer but one turn, a turn in the fork, a fold there over inherited rows, then the summary dropped and
 * folded again.
 */
const foldInBranch: [Step[], number] = [
  [
    { kind: 'append', at: 0, whole: true },
    { kind: 'append', at: 0, whole: true },
    { kind: 'fork', at: 0, seq: 7 },
    { kind: 'append', at: 1, whole: true },
    { kind: 'fold', at: 1, size: 3 },
    { kind: 'drop', at: 1, size: 4 },
    { kind: 'fold', at: 1, size: 3 },
  ],
  0,
]

/** A session as the model has it: its messages as the store returned them when appended, its pins. */
interface Model {
  messages: StoredMessageData[]
  pins: Set<number>
}

let counter = 0
/** Every fold the runs wrote (whether its summary was inherited: never, it is the branch's own). */
const folds: boolean[] = []
function turn(whole: boolean): MessageData[] {
  const t = counter++
  const call: MessageData[] = [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
  ]
  if (!whole) return call
  return [
    ...call,
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ]
}

/** Runs one step on the store and the model. */
async function run(store: LedgerStore, model: Map<string, Model>, s: Step, last: number): Promise<void> {
  const ids = [...model.keys()]
  const id = ids[s.at % ids.length] as string
  const m = model.get(id) as Model
  const n = m.messages.length
  switch (s.kind) {
    case 'append': {
      for (const e of await store.append(id, turn(s.whole))) {
        if (e.repair !== undefined) m.messages.push(e.repair.message)
        m.messages.push(e.message)
      }
      return
    }
    case 'fork': {
      if (n === 0) return
      const at = s.seq % n
      const b = await store.fork(id, { atSeq: at })
      model.set(b.sessionId, {
        messages: m.messages.slice(0, at + 1),
        pins: new Set([...m.pins].filter((q) => q <= at)),
      })
      return
    }
    case 'rewind': {
      if (n === 0) return
      const to = s.seq % n
      const r = await store.rewind(id, { toSeq: to })
      if (r.abandoned !== undefined)
        model.set(r.abandoned.sessionId, { messages: [...m.messages], pins: new Set(m.pins) })
      m.messages = m.messages.slice(0, to + 1)
      m.pins = new Set([...m.pins].filter((q) => q <= to))
      return
    }
    case 'pin':
    case 'unpin': {
      if (n === 0) return
      const seq = s.seq % n
      try {
        if (s.kind === 'pin') await store.pin(id, { seq })
        else await store.unpin(id, { seq })
      } catch (error) {
        // A message before the session's first plain user message cannot be pinned (docs/design.md).
        if (error instanceof ContextLedgerError && error.code === 'INVALID_OPTIONS') return
        throw error
      }
      if (s.kind === 'pin') m.pins.add(seq)
      else m.pins.delete(seq)
      return
    }
    case 'apply':
      await store.applyWindow(id, { windowSize: s.size, tokenBudget: undefined, first: 0, last })
      return
    case 'drop': {
      // Taking back the summary the window shows moves the boundary back (over inherited rows too).
      const shown = (await store.session(id))?.summaryId
      if (shown !== undefined)
        await store.dropSummary(id, shown, { windowSize: s.size, tokenBudget: undefined, first: 0, last })
      return
    }
    case 'fold': {
      // A summary of what the sliding window would drop (in the branch: over inherited rows too).
      const manager = backend.manager(store, {
        sessionId: id,
        windowSize: s.size,
        protectedMessages: { last },
      })
      const r = await manager.summarizeExcess(recordingSummarizer().summarize)
      if (r.summary !== undefined) folds.push(r.summary.inherited)
    }
  }
}

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

describe('branches, random trees', () => {
  it('every branch reads what a copy would hold, keeps its own pins, and keeps a valid window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 0, max: 3 }),
        async (steps, last) => {
          await backend.cleanup()
          const store = await backend.open()
          const model = new Map<string, Model>([['root', { messages: [], pins: new Set() }]])
          await store.append('root', turn(true))
          for (const e of await store.history('root')) model.get('root')?.messages.push(e.message)
          for (const s of steps) {
            await run(store, model, s, last)
            for (const [id, m] of model) {
              const history = (await store.history(id, { limit: 10_000 })).map((e) => e.message)
              if (JSON.stringify(history) !== JSON.stringify(m.messages))
                throw new Error(
                  `history of ${id} after ${JSON.stringify(s)}: ${JSON.stringify(history)} ≠ ${JSON.stringify(m.messages)}`,
                )
              const pins = (await store.pinnedMessages({ sessionId: id })).map((p) => p.seq)
              const want = [...m.pins].sort((a, b) => a - b)
              if (JSON.stringify(pins) !== JSON.stringify(want))
                throw new Error(
                  `pins of ${id} after ${JSON.stringify(s)}: ${JSON.stringify(pins)} ≠ ${JSON.stringify(want)}`,
                )
              await assertWindowRulesThroughApi(store, id, { first: 0, last })
            }
          }
        },
      ),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 10 : 40), examples: [foldInBranch] },
    )
    // The runs did fold (the example does, in a branch, whatever the random runs draw), and each summary
    // belongs to the session that wrote it.
    expect(folds.length).toBeGreaterThanOrEqual(2)
    expect(folds.every((inherited) => !inherited)).toBe(true)
    // FC_RUNS raises the runs; the time grows with them.
  }, 600_000)
})
