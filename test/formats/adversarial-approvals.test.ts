/**
 * AI SDK tool approvals in odd orders (a conformance-suite file): a tool message holding only approval
 * responses defers the calls before it, and whatever follows — a prompt, a reply, another approval, the
 * result, a result that comes too late — the window the model gets passes the SDK's own
 * `modelMessageSchema` and never shows a call without its result, nor a result without its call.
 */
import { afterAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { modelMessageSchema } from 'ai'
import type { ContextStore, MessageData } from '../../src/index.js'
import { checkSession } from '../../src/check/check-session.js'
import { BACKEND, coreStoreOf, makeBackend } from '../helpers/backend.js'
import { fcRuns } from '../helpers/runs.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const MODEL = { format: 'ai-sdk/model' } as const
type M = Record<string, unknown>
const as = (m: M): MessageData => m as unknown as MessageData
const user = (text: string): M => ({ role: 'user', content: text })
const reply = (text: string): M => ({ role: 'assistant', content: text })
const call = (id: string): M => ({
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: id, toolName: 't', input: { id } },
    { type: 'tool-approval-request', approvalId: `ap-${id}`, toolCallId: id },
  ],
})
const approve = (id: string): M => ({
  role: 'tool',
  content: [{ type: 'tool-approval-response', approvalId: `ap-${id}`, approved: true }],
})
const result = (id: string): M => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 't', output: { type: 'text', value: id } }],
})

interface Part {
  type: string
  toolCallId?: string
  providerExecuted?: boolean
}
const partsOf = (m: M): Part[] => (typeof m.content === 'string' ? [] : (m.content as Part[]))

/** What is wrong with a window: SDK schema failures, calls without results, results without calls. */
function problems(window: readonly unknown[]): string[] {
  const w = window as M[]
  const out: string[] = []
  w.forEach((m, i) => {
    if (!modelMessageSchema.safeParse(m).success) out.push(`schema@${i}`)
    // The tool messages that follow a call, up to the next prompt or reply, must answer it.
    if (m.role === 'assistant')
      for (const p of partsOf(m))
        if (p.type === 'tool-call' && p.providerExecuted !== true) {
          let answered = false
          for (let j = i + 1; j < w.length && w[j]?.role === 'tool'; j++)
            answered ||= partsOf(w[j] as M).some(
              (q) => q.type === 'tool-result' && q.toolCallId === p.toolCallId,
            )
          // Still waiting at the end of the window (the tool runs next) is not a problem.
          let end = i + 1
          while (end < w.length && w[end]?.role === 'tool') end++
          if (!answered && end < w.length) out.push(`unanswered ${p.toolCallId}@${i}`)
        }
    // A result's call is in the assistant message before the run of tool messages it belongs to.
    if (m.role === 'tool')
      for (const p of partsOf(m))
        if (p.type === 'tool-result') {
          let j = i - 1
          while (j >= 0 && w[j]?.role === 'tool') j--
          const made =
            j >= 0 && partsOf(w[j] as M).some((q) => q.type === 'tool-call' && q.toolCallId === p.toolCallId)
          if (!made) out.push(`orphan ${p.toolCallId}@${i}`)
        }
  })
  return out
}

describe(`AI SDK tool approvals in odd orders [${BACKEND}]`, () => {
  it.each([
    ['a prompt', user('next')],
    ['a reply', reply('hm')],
  ])('repairs a call whose approval was answered when %s follows instead of its result', async (_, next) => {
    const store = await backend.open()
    await store.append('s', [user('go'), call('A'), approve('A'), next].map(as), MODEL)
    const window = await store.window('s')
    expect(problems(window)).toEqual([])
    // The repair answers A with an error result, between the approval and what came next.
    expect((window as unknown as M[]).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      next.role,
    ])
    // One append at a time (the previous message read back from its row) does the same.
    await store.append('t', as(user('go')), MODEL)
    for (const m of [call('A'), approve('A'), approve('A'), next]) await store.append('t', as(m), MODEL)
    expect(problems(await store.window('t'))).toEqual([])
  })

  it('keeps every window valid whatever order prompts, calls, approvals and results come in', async () => {
    const step = fc.oneof(
      fc.constant({ kind: 'user' as const }),
      fc.constant({ kind: 'reply' as const }),
      fc.constant({ kind: 'call' as const }),
      fc.record({ kind: fc.constant('approve' as const), back: fc.nat(3) }),
      fc.record({ kind: fc.constant('result' as const), back: fc.nat(3) }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, size) => {
          const store = await backend.open()
          const calls: string[] = []
          const messages: M[] = [user('start')]
          for (const s of steps) {
            if (s.kind === 'user') messages.push(user('u'))
            else if (s.kind === 'reply') messages.push(reply('r'))
            else if (s.kind === 'call') {
              calls.push(`c${calls.length}`)
              messages.push(call(calls[calls.length - 1] as string))
            } else {
              const id = calls[calls.length - 1 - s.back]
              if (id !== undefined) messages.push(s.kind === 'approve' ? approve(id) : result(id))
            }
          }
          for (const m of messages) await store.append('s', as(m), MODEL)
          expect(problems(await store.window('s'))).toEqual([])
          await backend.manager(store, { sessionId: 's', windowSize: size }).applyWindow()
          expect(problems(await store.window('s'))).toEqual([])
          // The checker agrees (it reads SQLite files): every window and bookkeeping rule holds.
          if (BACKEND === 'sqlite')
            expect(checkSession(coreStoreOf(store) as ContextStore, 's').problems).toEqual([])
          await store.close()
        },
      ),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 15 : 60) },
    )
  })
})
