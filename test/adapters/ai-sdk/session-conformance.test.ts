/**
 * `ledgerSession` on either backend (a conformance-suite file: SQLite in `unit`, PostgreSQL in the
 * `postgres` project): the real `generateText` / `streamText` with `MockLanguageModelV4` through a
 * multi-step tool loop bounded by `tokenBudget`, a reopened ledger giving the same window, `useChat`-style
 * rounds through `toUIMessageStreamResponse` (idempotent saves, a regeneration, an assistant message
 * continued under its id after a client-side tool's output), the recall and pin tools, and a refused
 * input that changes no row.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, tool, type ToolSet, type UIMessage } from 'ai'
import { z } from 'zod'
import { ledgerSession, type LedgerSessionStore } from '../../../src/adapters/ai-sdk/index.js'
import { ContextLedgerError, type LedgerEntry } from '../../../src/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { chatRound, promptTokens, refusal, textModel, toolLoopModel } from './helpers.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

type Session = ReturnType<typeof ledgerSession<LedgerSessionStore>>
type Prompt = Parameters<typeof promptTokens>[0]

/** A fresh ledger: the suite's handle (for checksums and reopening) and the store `ledgerSession` takes. */
async function open(): Promise<{ handle: LedgerStore; store: LedgerSessionStore }> {
  const handle = await backend.open()
  return { handle, store: coreStoreOf(handle) }
}

/** The session's archive, on either backend. */
const history = async (session: Session): Promise<LedgerEntry[]> =>
  await session.ledger.history({ fromSeq: 0, limit: 1000 })

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T

const big = (n: number) => `result ${n}: ${'lorem ipsum '.repeat(200)}`
const lookup = tool({
  description: 'Looks a number up',
  inputSchema: z.object({ n: z.number() }),
  execute: ({ n }) => big(n),
})

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** One POST of a `useChat` route (see `chatRound`), on a session of either backend. */
const round = (
  session: Session,
  messages: UIMessage[],
  model: ReturnType<typeof textModel>,
  id: string,
  tools?: ToolSet,
) => chatRound(session, messages, model, id, tools)

describe('agent loops, on either backend', () => {
  it('keeps every step of a 30-step tool loop within tokenBudget, tool pairs intact, each message once', async () => {
    const limit = 4000
    const prompts: Prompt[] = []
    const { store } = await open()
    const session = ledgerSession({ store, sessionId: 's', tokenBudget: limit / 2 })
    await session.append([{ role: 'user', content: 'look up 30 numbers' }])
    const result = await generateText({
      model: toolLoopModel({ calls: 30, tool: 'lookup', maxPromptTokens: limit }, prompts),
      tools: { lookup, ...session.tools },
      messages: await session.window(),
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(40),
    })
    expect(result.text).toBe('done')
    expect(prompts.length).toBe(31)
    for (const p of prompts) {
      expect(promptTokens(p)).toBeLessThanOrEqual(limit)
      const calls = new Set(
        p
          .flatMap((m) => (m.role === 'assistant' ? m.content : []))
          .map((c) => (c as { toolCallId?: string }).toolCallId),
      )
      for (const m of p)
        if (m.role === 'tool')
          for (const c of m.content) expect(calls.has((c as { toolCallId: string }).toolCallId)).toBe(true)
    }
    expect(await session.append(result.responseMessages)).toEqual([])
    const archived = await history(session)
    expect(archived.map((e) => e.message)).toEqual(
      plain([{ role: 'user', content: 'look up 30 numbers' }, ...result.responseMessages]),
    )
    expect(archived.filter((e) => e.inWindow).length).toBeLessThan(archived.length)
    // Without the session the same loop overflows the model.
    await expect(
      generateText({
        model: toolLoopModel({ calls: 30, tool: 'lookup', maxPromptTokens: limit }),
        tools: { lookup },
        messages: [{ role: 'user', content: 'look up 30 numbers' }],
        stopWhen: stepCountIs(40),
      }),
    ).rejects.toThrow(/prompt too long/)
  })

  it('never fails a step once its messages are stored: a failing summary model falls back to eviction', async () => {
    const { store } = await open()
    const errors: unknown[] = []
    // A summary model that refuses every prompt, as a rate-limited one would.
    const failing = toolLoopModel({ calls: 0, tool: 'none', maxPromptTokens: 0 })
    const session = ledgerSession({
      store,
      sessionId: 's',
      windowSize: 6,
      summarize: { model: failing },
      onError: (e) => errors.push(e),
    })
    await session.append([{ role: 'user', content: 'look up 10 numbers' }])
    const result = await generateText({
      model: toolLoopModel({ calls: 10, tool: 'lookup' }),
      tools: { lookup },
      messages: await session.window(),
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(20),
    })
    expect(result.text).toBe('done')
    expect(errors.length).toBeGreaterThan(0)
    expect((errors[0] as ContextLedgerError).code).toBe('SUMMARIZER_FAILED')
    expect((await session.window()).length).toBeLessThanOrEqual(6)
    expect((await history(session)).length).toBe(22)
  })

  it('a reopened ledger gives the same window, and the session carries on from it', async () => {
    const { handle, store } = await open()
    const session = ledgerSession({ store, sessionId: 's', windowSize: 5 })
    await session.append([{ role: 'user', content: 'go' }])
    await generateText({
      model: toolLoopModel({ calls: 4, tool: 'lookup' }),
      tools: { lookup },
      messages: await session.window(),
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(10),
    })
    const mine = await session.window()
    expect(mine.length).toBeLessThan((await history(session)).length)
    const other = coreStoreOf(await backend.reopen(handle))
    const again = ledgerSession({ store: other, sessionId: 's', windowSize: 5 })
    expect(await again.window()).toEqual(mine)
    await again.append([{ role: 'user', content: 'and now?' }])
    expect((await session.window()).at(-1)).toEqual({ role: 'user', content: 'and now?' })
  })

  it('refuses a tool result whose call the session never made, and an unknown part, changing no row', async () => {
    const { handle, store } = await open()
    const session = ledgerSession({ store, sessionId: 's' })
    await session.append([{ role: 'user', content: 'hi' }])
    const before = await backend.checksum(handle)
    const orphan = await refusal(
      session.append([
        { role: 'assistant', content: 'ok' },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'nope', toolName: 'x', output: { type: 'text', value: 'v' } },
          ],
        },
      ]),
    )
    expect(orphan.path).toBe('[1].content[0].toolCallId')
    const ui = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    const unknown = await refusal(
      ui.saveUIMessages([user('u1', 'ok'), { id: 'u2', role: 'user', parts: [{ type: 'bogus' }] } as never]),
    )
    expect(unknown.path).toBe('[1].parts[0].type')
    // A ModelMessage part of no known type is named as precisely, with the types the role takes.
    const part = await refusal(
      session.append([{ role: 'user', content: [{ type: 'txt', text: 'hi' }] } as never]),
    )
    expect(part.path).toBe('[0].content[0].type')
    expect(part.message).toMatch(/known: text, file, image/)
    expect(await backend.checksum(handle)).toBe(before)
  })

  it('gives the recall and pin tools to the model', async () => {
    const { store } = await open()
    const session = ledgerSession({ store, sessionId: 's', windowSize: 4 })
    await session.append([
      { role: 'user', content: 'the launch code is PELICAN' },
      { role: 'assistant', content: 'noted' },
    ])
    for (let i = 0; i < 4; i++)
      await session.append([
        { role: 'user', content: `filler ${i}` },
        { role: 'assistant', content: `ok ${i}` },
      ])
    const { search_history, read_history, pin_message } = session.tools
    const options = { toolCallId: 't', messages: [], context: {} }
    expect(await search_history.execute?.({ query: 'launch code' }, options)).toContain('seq 0')
    const read = await read_history.execute?.({ fromSeq: 0, toSeq: 1 }, options)
    expect(read).toContain('PELICAN')
    expect(read).toContain('no longer in your context')
    expect(await pin_message.execute?.({ index: 1, action: 'pin', reason: 'keep' }, options)).toContain(
      'Pinned message 1',
    )
    expect(await pin_message.execute?.({ index: 9, action: 'pin' }, options)).toContain('Invalid index 9')
    const pinned = (await history(session)).filter((e) => e.pinned).map((e) => e.seq)
    expect(pinned).toEqual([7])
  })
})

describe('chat UIs, on either backend', () => {
  it('saves each round once, a re-sent list appends only what is new, a regeneration rewinds to the question', async () => {
    const { store } = await open()
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui', windowSize: 4 })
    let screen: UIMessage[] = []
    for (let i = 0; i < 3; i++)
      screen = await round(
        session,
        [...screen, user(`u${i}`, `question ${i}`)],
        textModel(`answer ${i}`),
        `a${i}`,
      )
    expect(screen.map((m) => m.id)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2'])
    expect(await session.saveUIMessages(screen)).toEqual([])
    expect((await history(session)).length).toBe(6)
    expect(await session.loadUIMessages()).toEqual(plain(screen))
    expect((await session.loadUIMessages({ limit: 2, before: 'a2' })).map((m) => m.id)).toEqual(['a1', 'u2'])
    // useChat's regenerate(): the last answer dropped, the request sent again.
    const prompts: Prompt[] = []
    const again = await round(session, screen.slice(0, 5), textModel('answer 2, again', prompts), 'a2b')
    expect(JSON.stringify(prompts[0])).not.toContain('answer 2"')
    expect(again.map((m) => m.id)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2b'])
    // The old answer left the conversation as an abandoned branch: nothing deleted.
    expect((await history(session)).map((e) => e.trackingId)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2b'])
    const abandoned = (await session.branches()).filter((b) => b.kind === 'abandoned')
    expect(abandoned).toMatchObject([{ parentId: 'chat', forkSeq: 4, ownMessages: 1, messageCount: 6 }])
    expect((await session.loadUIMessages()).map((m) => m.id)).toEqual(again.map((m) => m.id))
    expect(JSON.stringify(await session.window())).not.toContain('"answer 2"')
  })

  it('continues the newest assistant message under its id after a client-side tool output', async () => {
    const { store } = await open()
    const prompts: Prompt[] = []
    // A client-side tool: no execute, the browser answers it (useChat's addToolOutput). Its output
    // reaches the model through its toModelOutput: the session converts with its tools.
    const askColor = tool({
      description: 'Asks the user',
      inputSchema: z.object({ n: z.number() }),
      outputSchema: z.string(),
      toModelOutput: ({ output }) => ({ type: 'text', value: `the user chose ${output}` }),
    })
    const tools = { askColor }
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui', tools })
    const model = toolLoopModel({ calls: 1, tool: 'askColor', text: 'Blue it is.' }, prompts)
    const [u0, a0] = await round(session, [user('u0', 'pick a color')], model, 'a0', tools)
    const part = a0?.parts.find((p) => p.type === 'tool-askColor')
    expect(part).toMatchObject({ state: 'input-available', toolCallId: 'call-1' })
    // addToolOutput: the same message, its tool part moved on; useChat sends it again.
    const answered = {
      ...a0,
      parts: a0?.parts.map((p) => (p === part ? { ...p, state: 'output-available', output: 'blue' } : p)),
    } as UIMessage
    const finished = await round(session, [u0 as UIMessage, answered], model, 'unused', tools)
    expect(finished.map((m) => m.id)).toEqual(['u0', 'a0'])
    const final = finished[1] as UIMessage
    expect(final.parts.length).toBeGreaterThan(answered.parts.length)
    // The model saw the tool's output, converted with the session's tools.
    expect(JSON.stringify(prompts[1])).toContain('the user chose blue')
    const untooled = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    expect(JSON.stringify(await untooled.window())).not.toContain('the user chose')
    // One row per message; the newest version shown, every version kept (the row and the edit log).
    const rows = await history(session)
    expect(rows.map((e) => e.trackingId)).toEqual(['u0', 'a0'])
    expect(rows[1]?.message).toEqual(plain(a0))
    expect(await session.loadUIMessages()).toEqual(plain(finished))
    const edits = await session.ledger.edits()
    expect(edits.map((e) => [e.actor, e.reason])).toEqual([
      ['ai-sdk', 'continued'],
      ['ai-sdk', 'continued'],
    ])
    expect(JSON.stringify(await session.window())).toContain('Blue it is.')
    // Saving the same version again, or an earlier one (a client a step behind), is a no-op.
    expect(await session.saveUIMessages(finished)).toEqual([])
    expect(await session.saveUIMessages([u0 as UIMessage, answered])).toEqual([])
    expect((await session.ledger.edits()).length).toBe(2)
  })

  it('refuses to continue an older message, or to move a message back, writing nothing', async () => {
    const { handle, store } = await open()
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    const a0: UIMessage = { id: 'a0', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] }
    const a1: UIMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'again' }] }
    await session.saveUIMessages([user('u0', 'hi'), a0, user('u1', 'more'), a1])
    const before = await backend.checksum(handle)
    const more = (m: UIMessage): UIMessage => ({ ...m, parts: [...m.parts, { type: 'text', text: 'more' }] })
    const older = await refusal(session.saveUIMessages([user('u0', 'hi'), more(a0)]))
    expect(older.path).toBe('[1].id')
    const rewritten = { ...a1, parts: [{ type: 'text', text: 'rewritten' }] } as UIMessage
    const other = await refusal(session.saveUIMessages([user('u0', 'hi'), a0, user('u1', 'more'), rewritten]))
    expect(other.path).toBe('[3].id')
    const edited = await refusal(session.saveUIMessages([user('u0', 'hi'), a0, user('u1', 'other'), a1]))
    expect(edited.path).toBe('[2].id')
    expect(await backend.checksum(handle)).toBe(before)
    // The newest one may be continued; its first version sent again then changes nothing, and a version
    // that neither continues it nor is continued by it is refused.
    await session.saveUIMessages([user('u0', 'hi'), a0, user('u1', 'more'), more(a1)])
    expect(await session.saveUIMessages([a1])).toEqual([])
    const back = { ...a1, parts: [...a1.parts, { type: 'reasoning', text: 'x' }] } as UIMessage
    expect((await refusal(session.saveUIMessages([back]))).path).toBe('[0].id')
    expect((await session.loadUIMessages()).at(-1)).toEqual(more(a1))
  })
})

/** What a call threw. */
function optionError(call: () => unknown): ContextLedgerError {
  try {
    call()
  } catch (error) {
    if (error instanceof ContextLedgerError) return error
    throw error
  }
  throw new Error('the call was accepted')
}

describe('ledgerSession options', () => {
  it('reports an unknown or bad option as its own, naming it', async () => {
    const { store } = await open()
    const unknown = optionError(() => ledgerSession({ store, sessionId: 's', windowsize: 4 } as never))
    expect(unknown).toMatchObject({ code: 'INVALID_OPTIONS', path: 'windowsize' })
    expect(unknown.message).toMatch(/^Invalid ledgerSession options at windowsize: unknown option/)
    expect(() => ledgerSession({ store: {} as never, sessionId: 's' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'store' }),
    )
    expect(() => ledgerSession({ store, sessionId: 's', tools: { x: undefined } as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'tools.x' }),
    )
  })
  it('refuses to read a session of the other format, as it refuses to write one', async () => {
    const { store } = await open()
    await ledgerSession({ store, sessionId: 'as-ui', format: 'ui' }).saveUIMessages([user('u0', 'hello')])
    await ledgerSession({ store, sessionId: 'as-model' }).append([{ role: 'user', content: 'hello' }])
    await expect(ledgerSession({ store, sessionId: 'as-ui' }).window()).rejects.toMatchObject({
      code: 'FORMAT_MISMATCH',
    })
    const wrong = ledgerSession({ store, sessionId: 'as-model', format: 'ui' })
    await expect(wrong.window()).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
    await expect(wrong.loadUIMessages()).rejects.toMatchObject({ code: 'FORMAT_MISMATCH' })
  })

  it('cuts down to lowWaterMark of the limits when they are exceeded', async () => {
    const { store } = await open()
    const session = ledgerSession({
      store,
      sessionId: 'low',
      format: 'ui',
      windowSize: 10,
      lowWaterMark: 0.5,
    })
    for (let i = 0; i < 11; i++) await session.saveUIMessages([user(`u${i}`, `question ${i}`)])
    // Over 10 once the 11th arrives: brought down to 5, not to 10.
    expect((await session.loadUIMessages()).length).toBe(11)
    expect((await session.window()).length).toBeLessThanOrEqual(5)
    expect(() => ledgerSession({ store, sessionId: 'low', lowWaterMark: 2 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', path: 'lowWaterMark' }),
    )
  })
})
