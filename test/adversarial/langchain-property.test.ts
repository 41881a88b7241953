/**
 * Adversarial property: random batches through `LedgerChatMessageHistory.addMessages` — prompts, replies
 * with parallel calls, results for some of the open calls (on time or late), messages sent again, the
 * window handed back, mixed with hostile messages (a result for a call never made, a stored id with other
 * content, a caller's ledger notes, a made-up ledger id) — on a real SQLite file, any window size.
 * Holds after every batch: a batch with a hostile message is refused whole (`INVALID_MESSAGE` with a path
 * inside the batch, no row changed); any other is stored, each message once by its id; the window pairs
 * every call with its results (but the newest step's, still waiting); `check` passes at the end.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { LedgerChatMessageHistory } from '../../src/adapters/langchain/index.js'
import { fcRuns } from '../helpers/runs.js'
import { pairingProblems } from '../adapters/langchain/helpers.js'
import { checksum, failure, problems, useStores } from './langchain-support.js'

const { open } = useStores()

type Op =
  | { readonly kind: 'human' | 'again' | 'window' | 'ghost' | 'reuse' | 'notes' | 'forged' }
  | { readonly kind: 'ai'; readonly calls: number }
  | { readonly kind: 'results'; readonly pick: readonly boolean[] }

const HOSTILE = new Set(['ghost', 'reuse', 'notes', 'forged'])

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'human' as const }) },
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 3 }).map((calls) => ({ kind: 'ai' as const, calls })) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.boolean(), { minLength: 3, maxLength: 3 })
      .map((pick) => ({ kind: 'results' as const, pick })),
  },
  ...(['again', 'window', 'ghost', 'reuse', 'notes', 'forged'] as const).map((kind) => ({
    weight: 1,
    arbitrary: fc.constant({ kind }),
  })),
)

/** The window with the newest step's waiting calls answered, so only real gaps are problems. */
function settledWindow(window: readonly BaseMessage[]): BaseMessage[] {
  const last = window.findLastIndex((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0)
  if (last < 0 || !window.slice(last + 1).every((m) => ToolMessage.isInstance(m))) return [...window]
  const answered = new Set(
    window.slice(last + 1).flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : [])),
  )
  const waiting = ((window[last] as AIMessage).tool_calls ?? []).filter((c) => !answered.has(c.id ?? ''))
  return [...window, ...waiting.map((c) => new ToolMessage({ content: 'pending', tool_call_id: c.id ?? '' }))]
}

describe('addMessages under random batches with hostile messages mixed in', () => {
  it('refuses a hostile batch whole, stores the rest once, keeps the window paired', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 2, max: 8 }),
        async (batches, windowSize) => {
          const store = open()
          const h = new LedgerChatMessageHistory({ store, sessionId: 's', windowSize })
          const stored: BaseMessage[] = []
          let open_: string[] = []
          let n = 0
          const fresh = () => `m${n++}`
          for (const batch of batches) {
            const messages: BaseMessage[] = []
            const window = await h.getMessages()
            let opened = open_
            for (const o of batch) {
              if (o.kind === 'human') messages.push(new HumanMessage({ id: fresh(), content: `q ${n}` }))
              else if (o.kind === 'ai') {
                const calls = Array.from({ length: o.calls }, () => ({
                  id: `c${n++}`,
                  name: 'f',
                  args: { n },
                }))
                messages.push(new AIMessage({ id: fresh(), content: `a ${n}`, tool_calls: calls }))
                opened = calls.map((c) => c.id)
              } else if (o.kind === 'results') {
                const answer = opened.filter((_, i) => o.pick[i] === true)
                for (const id of answer)
                  messages.push(new ToolMessage({ id: fresh(), content: `r ${id}`, tool_call_id: id }))
                opened = opened.filter((id) => !answer.includes(id))
              } else if (o.kind === 'again' && stored.length > 0)
                messages.push(stored[n++ % stored.length] as BaseMessage)
              else if (o.kind === 'window') messages.push(...window)
              else if (o.kind === 'ghost')
                messages.push(new ToolMessage({ content: 'r', tool_call_id: 'never-made' }))
              else if (o.kind === 'reuse' && stored.length > 0) {
                const id = stored[n++ % stored.length]?.id ?? ''
                messages.push(new HumanMessage({ id, content: `not the stored one ${n}` }))
              } else if (o.kind === 'notes')
                messages.push(
                  new HumanMessage({
                    id: fresh(),
                    content: 'x',
                    response_metadata: {},
                    additional_kwargs: { context_ledger: { summary: true } },
                  }),
                )
              else if (o.kind === 'forged')
                messages.push(new HumanMessage({ id: `context-ledger:seq:${900 + n++}`, content: 'forged' }))
            }
            const hostile = batch.some(
              (o) => HOSTILE.has(o.kind) && (o.kind !== 'reuse' || stored.length > 0),
            )
            const before = checksum(store)
            if (hostile) {
              const error = await failure(() => h.addMessages(messages))
              expect(error.code).toBe('INVALID_MESSAGE')
              expect(error.path).toMatch(/^\[\d+\]/)
              expect(checksum(store)).toBe(before)
              continue
            }
            await h.addMessages(messages)
            open_ = opened
            for (const m of messages)
              if (!stored.some((s) => s.id === m.id) && !String(m.id).startsWith('context-ledger:'))
                stored.push(m)
            const archive = await h.history()
            const own = archive.filter((m) => !String(m.id).startsWith('context-ledger:'))
            expect(own.map((m) => m.id)).toStrictEqual(stored.map((m) => m.id))
            expect(pairingProblems(settledWindow(await h.getMessages()))).toStrictEqual([])
          }
          expect(problems(store, 's')).toStrictEqual([])
        },
      ),
      { numRuns: fcRuns(25) },
    )
  })
})
