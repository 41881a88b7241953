/**
 * Regenerate and edit in an agent loop over ModelMessages, on either backend (written against
 * test/helpers/backend.ts): the real `generateText` and `streamText` (`MockLanguageModelV4`) through
 * multi-step tool loops over the session's window, `session.regenerate()` and
 * `session.replaceMessage()` between runs. What they replace leaves the conversation as an abandoned
 * branch, tool calls with their results; the next run never sees it; a reopened ledger gives the same
 * window and tree; bad input is refused with a typed error and changes no row.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai'
import { z } from 'zod'
import { ledgerSession, type LedgerSessionStore } from '../../../src/adapters/ai-sdk/index.js'
import { ContextLedgerError, type LedgerEntry } from '../../../src/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { refusal, toolLoopModel, type promptTokens } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

type Session = ReturnType<typeof ledgerSession<LedgerSessionStore>>
type Prompt = Parameters<typeof promptTokens>[0]

const lookup = tool({
  description: 'Looks a number up',
  inputSchema: z.object({ n: z.number() }),
  execute: ({ n }) => `number ${n} is ${n * 7}`,
})

/** One run of the loop over the window, archived step by step; `stream` for `streamText`. */
async function run(session: Session, calls: number, text: string, prompts: Prompt[], stream = false) {
  const options = {
    model: toolLoopModel({ calls, tool: 'lookup', text }, prompts),
    tools: { lookup },
    messages: await session.window(),
    prepareStep: session.prepareStep,
    onStepEnd: session.onStepEnd,
    stopWhen: stepCountIs(10),
  }
  if (!stream) return (await generateText(options)).text
  const result = streamText(options)
  return await result.text
}

const roles = (entries: readonly LedgerEntry[]) => entries.map((e) => (e.message as { role: string }).role)

async function agentOn() {
  const handle = await backend.open()
  const store = coreStoreOf(handle)
  const session = ledgerSession({ store, sessionId: 'agent' })
  const history = async (id = 'agent') => handle.history(id, { limit: 1000 })
  return { handle, store, session, history }
}

/** A ContextLedgerError with this code a call rejects with. */
async function rejection(call: Promise<unknown>, code: string): Promise<ContextLedgerError> {
  const error: unknown = await call.then(
    () => new Error('the call was accepted'),
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ContextLedgerError)
  expect((error as ContextLedgerError).code).toBe(code)
  return error as ContextLedgerError
}

describe('regenerate in an agent loop', () => {
  it('rewinds to the prompt: the tool calls and the answer leave together; the next run sees only the prompt', async () => {
    const { session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up two numbers' }])
    expect(await run(session, 2, 'first answer', [])).toBe('first answer')
    expect(roles(await history())).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    const change = await session.regenerate()
    expect(change).toMatchObject({
      left: 5,
      entries: [],
      abandoned: { sessionId: 'agent~1', parentId: 'agent', forkSeq: 0, kind: 'abandoned', ownMessages: 5 },
    })
    expect(await session.window()).toEqual([{ role: 'user', content: 'look up two numbers' }])
    const prompts: Prompt[] = []
    expect(await run(session, 1, 'second answer', prompts, true)).toBe('second answer')
    expect(JSON.stringify(prompts[0])).not.toContain('first answer')
    expect(JSON.stringify(prompts)).not.toContain('is 14')
    expect(roles(await history())).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // Nothing lost: the abandoned branch is the prompt, then the first run whole.
    expect(roles(await history('agent~1'))).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ])
    const versions = await session.alternatives({ seq: 1 })
    expect(versions.map((a) => [a.sessionId, a.current])).toEqual([
      ['agent~1', false],
      ['agent', true],
    ])
  })

  it('regenerates from an assistant message: the tool results before it stay, the loop goes on from them', async () => {
    const { session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up one number' }])
    await run(session, 1, 'the answer', [])
    const change = await session.regenerate({ seq: 3 })
    expect(change.left).toBe(1)
    const prompts: Prompt[] = []
    // The model is asked with the tool result last, and answers.
    expect(await run(session, 0, 'a better answer', prompts)).toBe('a better answer')
    expect(prompts[0]?.at(-1)?.role).toBe('tool')
    expect(roles(await history())).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })
})

describe('edit and regenerate in an agent loop', () => {
  it('replaces a later prompt: the turns before it stay, the old turn leaves, the edited prompt is answered', async () => {
    const { session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up one number' }])
    await run(session, 1, 'answer one', [])
    await session.append([{ role: 'user', content: 'now look up another' }])
    await run(session, 1, 'answer two', [])
    const edited: ModelMessage = { role: 'user', content: 'now look up two more' }
    const change = await session.replaceMessage({ seq: 4 }, edited)
    expect(change.left).toBe(4)
    expect(change.entries.map((e) => e.seq)).toEqual([4])
    expect(change.abandoned).toMatchObject({ forkSeq: 3, ownMessages: 4, reason: 'edit seq 4' })
    // The same object given again (the caller's list) is not archived twice.
    await session.append([edited])
    const prompts: Prompt[] = []
    await run(session, 2, 'answer three', prompts)
    expect(JSON.stringify(prompts[0])).toContain('now look up two more')
    expect(JSON.stringify(prompts)).not.toContain('now look up another')
    expect(JSON.stringify(prompts)).not.toContain('answer two')
    expect(roles(await history()).slice(0, 5)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
    const versions = await session.alternatives({ seq: 4 })
    expect(versions.map((a) => (a.message as { content: unknown }).content)).toEqual([
      'now look up another',
      'now look up two more',
    ])
  })

  it('an unchanged message keeps it and regenerates its answer; a reopened ledger sees the same window and tree', async () => {
    const { handle, session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up one number' }])
    await run(session, 1, 'answer one', [])
    const change = await session.replaceMessage({ seq: 0 }, { role: 'user', content: 'look up one number' })
    expect(change).toMatchObject({ left: 3, entries: [] })
    expect(roles(await history())).toEqual(['user'])
    await run(session, 1, 'answer again', [])
    const reopened = await backend.reopen(handle)
    const again = ledgerSession({ store: coreStoreOf(reopened), sessionId: 'agent' })
    expect(await again.window()).toEqual(await session.window())
    expect(await again.branches()).toEqual(await session.branches())
  })
})

describe('bad input', () => {
  it('is refused with a typed error naming the field, and changes no row', async () => {
    const { handle, session } = await agentOn()
    await session.append([{ role: 'user', content: 'look up one number' }])
    await run(session, 1, 'the answer', [])
    const before = await backend.checksum(handle)
    expect((await rejection(session.regenerate({ seq: 9 }), 'MESSAGE_NOT_FOUND')).path).toBe('seq')
    expect((await rejection(session.regenerate({ messageId: 'nope' }), 'MESSAGE_NOT_FOUND')).path).toBe(
      'messageId',
    )
    // A tool result is not an answer: regenerate the assistant message that called the tool.
    expect((await rejection(session.regenerate({ seq: 2 }), 'INVALID_OPTIONS')).path).toBe('seq')
    expect((await rejection(session.regenerate({ seq: -1 }), 'INVALID_OPTIONS')).path).toBe('target')
    await rejection(
      session.replaceMessage({ seq: 0, messageId: 'x' }, { role: 'user', content: 'x' }),
      'INVALID_OPTIONS',
    )
    const system = await refusal(session.replaceMessage({ seq: 0 }, { role: 'system', content: 'be terse' }))
    expect(system.path).toBe('[0].role')
    await refusal(session.replaceMessage({ seq: 0 }, { role: 'user', content: [{ type: 'bogus' }] } as never))
    expect((await rejection(session.alternatives({ seq: 9 }), 'MESSAGE_NOT_FOUND')).path).toBe('seq')
    expect(await backend.checksum(handle)).toBe(before)
    // A session with no user message has no answer to regenerate; a chat not written yet has no tree.
    const empty = ledgerSession({ store: coreStoreOf(handle), sessionId: 'empty' })
    await rejection(empty.regenerate(), 'MESSAGE_NOT_FOUND')
    expect(await empty.branches()).toEqual([])
  })
})
