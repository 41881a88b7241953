/**
 * Adversarial exactly-once archiving on SQLite: the same messages reaching a session by several paths —
 * two `ledgerSession`s on one session (a route that opens one per request), JSON copies of messages the
 * session archived (a server that re-serializes), and a `useChat` list that forks the history.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, tool, type UIMessage } from 'ai'
import { z } from 'zod'
import { ledgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { refusal, toolLoopModel } from './helpers.js'

let dir: TempDir
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => {
  dir.cleanup()
})

const lookup = tool({ inputSchema: z.object({ n: z.number() }), execute: ({ n }) => `result ${n}` })
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T
const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const answer = (id: string, text: string): UIMessage => ({
  id,
  role: 'assistant',
  parts: [{ type: 'text', text }],
})

describe('two ledgerSessions on one session in one process', () => {
  it('concurrent saves of diverging lists never store a message twice', async () => {
    const store = dir.open()
    const a = ledgerSession({ store, sessionId: 'c', format: 'ui' })
    const b = ledgerSession({ store, sessionId: 'c', format: 'ui' })
    const start = [user('u0', 'hi'), answer('a0', 'hello'), user('u1', 'q')]
    await a.saveUIMessages(start)
    // Both requests carry the same answer a1 and a different new message u2.
    const results = await Promise.allSettled([
      a.saveUIMessages([...start, answer('a1', 'r'), user('u2', 'from tab A')]),
      b.saveUIMessages([...start, answer('a1', 'r'), user('u2', 'from tab B')]),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected'])
    const history = a.ledger.history()
    expect(history.map((e) => e.trackingId)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2'])
    expect(history.every((e) => e.repeatOf === undefined)).toBe(true)
  })

  it('a second session skips the objects the first one archived', async () => {
    const store = dir.open()
    const a = ledgerSession({ store, sessionId: 's' })
    const b = ledgerSession({ store, sessionId: 's' })
    await a.append([{ role: 'user', content: 'go' }])
    const result = await generateText({
      model: toolLoopModel({ calls: 2, tool: 'lookup' }),
      tools: { lookup },
      messages: await a.window(),
      prepareStep: a.prepareStep,
      onStepEnd: a.onStepEnd,
      stopWhen: stepCountIs(10),
    })
    expect(await b.append(result.responseMessages)).toEqual([])
    expect(a.ledger.history().length).toBe(6)
  })
})

describe('JSON copies of archived ModelMessages', () => {
  it('a re-serialized responseMessages appends only what the loop did not archive', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's' })
    const result = await generateText({
      model: toolLoopModel({ calls: 2, tool: 'lookup' }),
      tools: { lookup },
      messages: [{ role: 'user', content: 'go' }],
      prepareStep: session.prepareStep,
      stopWhen: stepCountIs(10),
    })
    // prepareStep archived the prompt and steps 1-2; a copy (a server that re-serializes) adds the answer.
    expect(session.ledger.history().length).toBe(5)
    expect((await session.append(plain(result.responseMessages))).length).toBe(1)
    expect(await session.append(plain(result.responseMessages))).toEqual([])
    const history = session.ledger.history()
    expect(history.map((e) => e.message)).toEqual(
      plain([{ role: 'user', content: 'go' }, ...result.responseMessages]),
    )
  })

  it('a re-serialized window given back as messages is not archived again', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's' })
    await session.append([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ])
    await generateText({
      model: toolLoopModel({ calls: 1, tool: 'lookup' }),
      tools: { lookup },
      messages: [...plain(await session.window()), { role: 'user', content: 'look one up' }],
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(10),
    })
    expect(session.ledger.history().map((e) => e.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
  })
})

describe('a useChat list that forks the history', () => {
  it('refuses a new message that does not follow the newest stored one, writing nothing', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 'c', format: 'ui' })
    await session.saveUIMessages([
      user('u0', 'hi'),
      answer('a0', 'hello'),
      user('u1', 'q'),
      answer('a1', 'r'),
    ])
    // A "regenerate" of a0, which is not the newest answer: the client dropped u1 and a1.
    const error = await refusal(session.saveUIMessages([user('u0', 'hi'), answer('b0', 'hello again')]))
    expect(error.path).toBe('[1].id')
    // A reordered list with a new message after an old one.
    await refusal(
      session.saveUIMessages([user('u1', 'q'), answer('a1', 'r'), user('u0', 'hi'), user('u2', 'x')]),
    )
    expect(session.ledger.history().map((e) => e.trackingId)).toEqual(['u0', 'a0', 'u1', 'a1'])
    // A list of only the new message (a client that sends the last message) still appends.
    expect((await session.saveUIMessages([user('u2', 'next')])).map((e) => e.trackingId)).toEqual(['u2'])
  })
})
