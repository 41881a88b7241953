/**
 * Two writers regenerating one chat at once, on either backend (written against test/helpers/backend.ts):
 * two route instances over two stores on one ledger — two server processes — each given the request
 * `useChat`'s `regenerate()` sends, their models answering through a tool call with `streamText`. Whatever
 * the order their saves land in, each request ends in a response its client can use (the answer) or a
 * typed refusal naming the problem, never a raw error; the chat ends as one question and one answer that
 * a response streamed; the tree is the chat and abandoned branches of it; every answer any writer saved is
 * still in the tree; and each session's window keeps every window rule.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { UIMessage } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { ledgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { assertWindowRulesOf } from '../../helpers/window-rules.js'
import { chatRoute } from '../../../examples/ai-sdk-chat-route.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/**
 * A model that looks the question up, then answers `<name> answer <n>`; before each answer it waits for
 * `gate()` (to hold a writer back while the other one goes on).
 */
function writerModel(name: string, gate: () => Promise<void> = () => Promise.resolve()) {
  let answers = 0
  let calls = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const calling = prompt.at(-1)?.role === 'user'
      if (!calling) await gate()
      const parts: StreamPart[] = calling
        ? [
            {
              type: 'tool-call',
              toolCallId: `${name}-call-${++calls}`,
              toolName: 'lookup_runbook',
              input: JSON.stringify({ question: 'failover' }),
            },
          ]
        : [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: `${name} answer ${++answers}` },
            { type: 'text-end', id: 't' },
          ]
      parts.push({
        type: 'finish',
        finishReason: { unified: calling ? 'tool-calls' : 'stop', raw: undefined },
        usage,
      })
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
}

/** A promise and the function that resolves it. */
function latch(): { wait: () => Promise<void>; open: () => void } {
  let open = (): void => undefined
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { wait: () => opened, open }
}

const textOf = (m: UIMessage | undefined): string =>
  (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')

/** What a client gets from one POST: the answer streamed, or the refusal's code and field. */
interface Outcome {
  readonly status: number
  readonly answer?: string
  readonly code?: string
  readonly path?: string
  readonly message?: string
}

/** Posts a body to a route and reads the whole response the way the client would. */
async function post(route: ReturnType<typeof chatRoute>, body: object): Promise<Outcome> {
  const response = await route.POST(
    new Request('http://localhost/api/chat', { method: 'POST', body: JSON.stringify(body) }),
  )
  const text = await response.text()
  if (response.status !== 200) return { status: response.status, ...(JSON.parse(text) as object) }
  // The UI message stream: an error chunk would be the client's error; the answer is its text deltas.
  expect(text).not.toContain('"type":"error"')
  const answer = [...text.matchAll(/"delta":"([^"]*)"/gu)].map((m) => m[1]).join('')
  return { status: 200, answer }
}

/** A chat with one question answered, on a fresh ledger, and two writers' stores on it. */
async function twoWriters(gateA?: () => Promise<void>, gateB?: () => Promise<void>) {
  const first = await backend.open()
  const second = await backend.reopen(first)
  const setup = chatRoute(coreStoreOf(first), writerModel('setup'))
  const asked = await post(setup, {
    id: 'chat',
    messages: [{ id: 'q', role: 'user', parts: [{ type: 'text', text: 'How does db-eu fail over?' }] }],
    trigger: 'submit-message',
  })
  expect(asked).toMatchObject({ status: 200, answer: 'setup answer 1' })
  const session = ledgerSession({ store: coreStoreOf(first), sessionId: 'chat', format: 'ui' })
  const shown = await session.loadUIMessages()
  const body = {
    id: 'chat',
    messages: shown.slice(0, 1),
    trigger: 'regenerate-message',
    messageId: shown[1]?.id,
  }
  const a = chatRoute(coreStoreOf(first), writerModel('A', gateA))
  const b = chatRoute(coreStoreOf(second), writerModel('B', gateB))
  return { first, session, body, a, b }
}

/** What must hold once both requests are done, whatever they answered. */
async function settled(handle: LedgerStore, outcomes: readonly Outcome[]): Promise<void> {
  for (const o of outcomes)
    if (o.status !== 200) {
      expect([400, 404, 409]).toContain(o.status)
      expect(o.code).toMatch(/^[A-Z_]+$/u)
      expect(o.message).toEqual(expect.any(String))
    }
  const answered = outcomes.flatMap((o) => (o.answer === undefined ? [] : [o.answer]))
  expect(answered.length).toBeGreaterThan(0)
  const store = coreStoreOf(handle)
  const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
  const chat = await session.loadUIMessages()
  expect(chat.map((m) => m.role)).toEqual(['user', 'assistant'])
  expect(answered).toContain(textOf(chat[1]))
  const tree = await session.branches()
  expect(tree[0]).toMatchObject({ sessionId: 'chat', kind: 'root' })
  expect(tree.slice(1).every((b) => b.kind === 'abandoned' && b.parentId === 'chat')).toBe(true)
  // Every answer written is in the tree (one per branch: a question and its answer), none twice.
  const kept: string[] = []
  for (const b of tree) {
    const messages = await ledgerSession({ store, sessionId: b.sessionId, format: 'ui' }).loadUIMessages()
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    kept.push(textOf(messages[1]))
    await assertWindowRulesOf(handle, b.sessionId, {}, { throughApi: true })
  }
  expect(kept).toContain('setup answer 1')
  expect(new Set(kept).size).toBe(kept.length)
  const versions = await session.alternatives({ seq: 1 })
  expect(versions.map((v) => textOf(v.message as UIMessage)).sort()).toEqual([...kept].sort())
}

describe('two requests regenerating one answer at once', () => {
  it('started together: each gets an answer or a typed refusal; one answer is the chat’s, none is lost', async () => {
    for (let round = 0; round < 3; round++) {
      const { first, body, a, b } = await twoWriters()
      const outcomes = await Promise.all([post(a, body), post(b, body)])
      await settled(first, outcomes)
    }
  })

  it('B saves and answers while A’s answer is held back: both are kept, the chat shows one', async () => {
    const held = latch()
    const { first, body, a, b } = await twoWriters(held.wait)
    const slow = post(a, body)
    const fast = await post(b, body)
    held.open()
    await settled(first, [await slow, fast])
  })

  it('A rewinds, B answers in full, then A answers: the chat is one of theirs, the other a branch', async () => {
    const held = latch()
    const bStarted = latch()
    const { first, body, a, b } = await twoWriters(held.wait, async () => {
      bStarted.open()
      return Promise.resolve()
    })
    const slow = post(a, body)
    const fast = post(b, body)
    await bStarted.wait()
    const bDone = await fast
    held.open()
    await settled(first, [await slow, bDone])
  })
})
