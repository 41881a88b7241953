/**
 * Tool calls on both sides of an edit point, on either backend (written against test/helpers/backend.ts),
 * through the real `streamText` / `generateText` (`MockLanguageModelV4`): an edit or a regeneration never
 * splits a call from its result — the calls before the point stay with their results, the calls after it
 * leave with theirs in the abandoned branch — and the SDK accepts the window as the next prompt (it
 * refuses a prompt with a call left unanswered). A client-side call left open, then answered by the
 * store's repair row when the user wrote instead, stays answered when that message is edited. In a
 * `useChat` chat the answers' tool parts keep their outputs on both sides. Each session's window keeps
 * every window rule.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type UIMessage } from 'ai'
import { z } from 'zod'
import { ledgerSession, type LedgerSessionStore } from '../../../src/adapters/ai-sdk/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { assertWindowRulesOf } from '../../helpers/window-rules.js'
import { HeadlessChat } from '../../../examples/ai-sdk-chat-client.js'
import { runbookModel } from '../../../examples/ai-sdk-chat-model.js'
import { chatRoute } from '../../../examples/ai-sdk-chat-route.js'
import { toolLoopModel, type promptTokens } from './helpers.js'

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

/** A tool the client answers (no `execute`): the loop stops at its call. */
const confirm = tool({
  description: 'Asks the user to confirm',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.string(),
})

/** One `streamText` run over the window, archived step by step; its model's call ids start with `prefix`. */
async function run(session: Session, calls: number, prefix: string, prompts: Prompt[] = []) {
  const result = streamText({
    model: toolLoopModel({ calls, tool: 'lookup', text: `${prefix} answer`, idPrefix: prefix }, prompts),
    tools: { lookup },
    messages: await session.window(),
    prepareStep: session.prepareStep,
    onStepEnd: session.onStepEnd,
    stopWhen: stepCountIs(10),
  })
  return await result.text
}

type Part = { type?: string; toolCallId?: string }
const partsOf = (messages: readonly unknown[], role: string, type: string): string[] =>
  messages.flatMap((m) => {
    const { role: r, content } = m as { role: string; content: unknown }
    if (r !== role || !Array.isArray(content)) return []
    return (content as Part[]).flatMap((p) => (p.type === type ? [p.toolCallId ?? ''] : []))
  })
/** The call ids of the tool calls and of the tool results in some messages. */
const calls = (messages: readonly unknown[]) => ({
  calls: partsOf(messages, 'assistant', 'tool-call'),
  results: partsOf(messages, 'tool', 'tool-result'),
})

async function agentOn() {
  const handle = await backend.open()
  const session = ledgerSession({ store: coreStoreOf(handle), sessionId: 'agent' })
  const history = async (id = 'agent') => (await handle.history(id, { limit: 1000 })).map((e) => e.message)
  return { handle, session, history }
}

/** The window rules of every session of the tree. */
async function rulesHold(handle: LedgerStore, session: { branches(): Promise<{ sessionId: string }[]> }) {
  for (const b of await session.branches())
    await assertWindowRulesOf(handle, b.sessionId, {}, { throughApi: true })
}

describe('tool calls across the edit point (agent loop, streamText)', () => {
  it('an edited prompt: the calls before it stay answered, its turn’s calls leave with their results', async () => {
    const { handle, session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up two numbers' }])
    await run(session, 2, 'one')
    await session.append([{ role: 'user', content: 'now look up another' }])
    await run(session, 1, 'two')
    // seqs 0–5: the first turn (two calls); 6–9: the second (one call).
    expect(calls(await history())).toEqual({
      calls: ['one-1', 'one-2', 'two-1'],
      results: ['one-1', 'one-2', 'two-1'],
    })
    const change = await session.replaceMessage({ seq: 6 }, { role: 'user', content: 'now look up three' })
    expect(change).toMatchObject({ left: 4, abandoned: { forkSeq: 5, ownMessages: 4 } })
    const window: ModelMessage[] = await session.window()
    expect(calls(window)).toEqual({ calls: ['one-1', 'one-2'], results: ['one-1', 'one-2'] })
    const abandoned = change.abandoned?.sessionId ?? ''
    const own = (await history(abandoned)).slice(6)
    expect(calls(own)).toEqual({ calls: ['two-1'], results: ['two-1'] })
    // The SDK takes the window as a prompt (a call without its result would be refused) and goes on.
    const prompts: Prompt[] = []
    expect(await run(session, 3, 'three', prompts)).toBe('three answer')
    expect(calls(prompts[0] ?? [])).toEqual({ calls: ['one-1', 'one-2'], results: ['one-1', 'one-2'] })
    expect(JSON.stringify(prompts)).not.toContain('two-1')
    expect(calls(await history())).toEqual({
      calls: ['one-1', 'one-2', 'three-1', 'three-2', 'three-3'],
      results: ['one-1', 'one-2', 'three-1', 'three-2', 'three-3'],
    })
    await rulesHold(handle, session)
  })

  it('a regenerated answer after a tool result keeps the call and its result; one at the call takes both', async () => {
    const { handle, session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'look up two numbers' }])
    await run(session, 2, 'one')
    // seq 5 is the answer: the calls at 1 and 3 and their results stay.
    expect((await session.regenerate({ seq: 5 })).left).toBe(1)
    expect(calls(await session.window())).toEqual({ calls: ['one-1', 'one-2'], results: ['one-1', 'one-2'] })
    await run(session, 0, 'again')
    // seq 3 calls the second tool: it and its result leave together, the first call stays answered.
    const change = await session.regenerate({ seq: 3 })
    expect(change.left).toBe(3)
    expect(calls(await session.window())).toEqual({ calls: ['one-1'], results: ['one-1'] })
    expect(calls((await history(change.abandoned?.sessionId ?? '')).slice(3))).toEqual({
      calls: ['one-2'],
      results: ['one-2'],
    })
    expect(await run(session, 1, 'after')).toBe('after answer')
    await rulesHold(handle, session)
  })

  it('a client-side call the user wrote past stays answered by the repair row when that message is edited', async () => {
    const { handle, session, history } = await agentOn()
    await session.append([{ role: 'user', content: 'confirm number 5' }])
    const stopped = await generateText({
      model: toolLoopModel({ calls: 1, tool: 'confirm', idPrefix: 'ask' }),
      tools: { confirm },
      messages: await session.window(),
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(5),
    })
    expect(stopped.finishReason).toBe('tool-calls')
    // The user writes instead of confirming: the store answers the open call with a repair row first.
    await session.append([{ role: 'user', content: 'never mind, look up 6' }])
    const before = await history()
    expect(before.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(calls(before)).toEqual({ calls: ['ask-1'], results: ['ask-1'] })
    const change = await session.replaceMessage(
      { seq: 3 },
      { role: 'user', content: 'never mind, look up 7' },
    )
    expect(change).toMatchObject({ left: 1, abandoned: { forkSeq: 2, ownMessages: 1 } })
    expect(calls(await session.window())).toEqual({ calls: ['ask-1'], results: ['ask-1'] })
    const prompts: Prompt[] = []
    expect(await run(session, 1, 'seven', prompts)).toBe('seven answer')
    expect(JSON.stringify(prompts[0])).toContain('look up 7')
    expect(JSON.stringify(prompts)).not.toContain('look up 6')
    await rulesHold(handle, session)
  })
})

describe('tool calls across the edit point (useChat)', () => {
  it('an edited question: earlier answers keep their tool outputs, the replaced ones keep theirs in the branch', async () => {
    const handle = await backend.open()
    const store = coreStoreOf(handle)
    const chat = new HeadlessChat({ id: 'chat', handler: chatRoute(store, runbookModel().model).POST })
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    for (const text of ['How does db-eu fail over?', 'Who approves it?', 'Anything else?'])
      await chat.sendMessage({ text })
    const edited = chat.messages[2]?.id ?? ''
    await chat.sendMessage({ text: 'Who is on call for it?', messageId: edited })
    expect(chat.error).toBeUndefined()
    const toolParts = (messages: readonly UIMessage[]) =>
      messages.flatMap((m) =>
        m.parts.flatMap((p) => (p.type === 'tool-lookup_runbook' ? [[p.toolCallId, p.state]] : [])),
      )
    // lookup-1 answered the first question; lookup-4 the edited one; lookup-2 and -3 left with their turns.
    expect(toolParts(await session.loadUIMessages())).toEqual([
      ['lookup-1', 'output-available'],
      ['lookup-4', 'output-available'],
    ])
    const window = await session.window()
    expect(calls(window)).toEqual({ calls: ['lookup-1', 'lookup-4'], results: ['lookup-1', 'lookup-4'] })
    const [abandoned] = (await session.branches()).filter((b) => b.kind === 'abandoned')
    const branch = ledgerSession({ store, sessionId: abandoned?.sessionId ?? '', format: 'ui' })
    expect(toolParts(await branch.loadUIMessages())).toEqual([
      ['lookup-1', 'output-available'],
      ['lookup-2', 'output-available'],
      ['lookup-3', 'output-available'],
    ])
    expect(calls(await branch.window())).toEqual({
      calls: ['lookup-1', 'lookup-2', 'lookup-3'],
      results: ['lookup-1', 'lookup-2', 'lookup-3'],
    })
    await rulesHold(handle, session)
  })
})
