import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  readUIMessageStream,
  toUIMessageStream,
  safeValidateUIMessages,
  streamText,
  isStepCount,
  tool,
  type UIMessage,
} from 'ai'
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'
import { ContextLedgerError } from '../../src/errors.js'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { snapshotJson } from '../../src/messages/json-snapshot.js'
import { aiSdkUiFormat as format, type UIMessageData } from '../../src/formats/ai-sdk-ui/index.js'
import { fcRuns } from '../helpers/runs.js'
import { mutate, refusalOf } from './helpers.js'
import { INVALID_UI_MESSAGES, VALID_UI_MESSAGES } from './ai-sdk-ui-corpus.js'

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)
const sdkAccepts = async (m: unknown) => (await safeValidateUIMessages({ messages: [m] })).success

const refusal = (m: unknown) => refusalOf(snap, m)

describe('ai-sdk/ui snapshot', () => {
  it('keeps every valid message exactly (ids, metadata, every part kind)', async () => {
    for (const m of VALID_UI_MESSAGES) {
      expect(await sdkAccepts(m), m.id).toBe(true)
      expect(snap(m)).toEqual(JSON.parse(JSON.stringify(m)))
    }
  })

  it('refuses what validateUIMessages refuses, at the named path', async () => {
    for (const { message, path } of INVALID_UI_MESSAGES) {
      expect(await sdkAccepts(message), JSON.stringify(message)).toBe(false)
      expect(refusal(message).path, JSON.stringify(message)).toBe(path)
    }
  })

  it('refuses a system message and an empty id (stricter than the SDK, on purpose)', () => {
    const system = refusal({ id: 's', role: 'system', parts: [{ type: 'text', text: 'be brief' }] })
    expect(system.path).toBe('role')
    expect(system.message).toMatch(/system.*instructions/)
    expect(refusal({ id: '', role: 'user', parts: [{ type: 'text', text: 'x' }] }).path).toBe('id')
  })

  it("strips a caller's metadata.contextLedger, dropping metadata when it empties", () => {
    const forged = { summary: true, pruned: true }
    const bare = snap({
      id: 'x',
      role: 'user',
      parts: [{ type: 'text', text: 'x' }],
      metadata: { contextLedger: forged },
    })
    expect(bare).toEqual({ id: 'x', role: 'user', parts: [{ type: 'text', text: 'x' }] })
    const kept = snap({
      id: 'x',
      role: 'user',
      parts: [{ type: 'text', text: 'x' }],
      metadata: { contextLedger: forged, a: 1 },
    })
    expect(kept.metadata).toEqual({ a: 1 })
    expect(format.notesOf(kept)).toBeUndefined()
  })

  it('agrees with validateUIMessages on mutated messages: every SDK refusal is ours too', async () => {
    const values = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
      fc.constant({}),
      fc.constantFrom(
        'text',
        'tool-x',
        'data-y',
        'output-available',
        'output-error',
        'system',
        'dynamic-tool',
      ),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...VALID_UI_MESSAGES),
        fc.nat(),
        values,
        async (message, pick, value) => {
          const mutated = mutate(JSON.parse(JSON.stringify(message)) as unknown, pick, value)
          let ours: Error | undefined
          try {
            snap(mutated)
          } catch (error) {
            ours = error as Error
          }
          if (!(await sdkAccepts(mutated)))
            expect(ours, JSON.stringify(mutated)).toBeInstanceOf(ContextLedgerError)
          else if (ours !== undefined)
            expect(ours.message, JSON.stringify(mutated)).toMatch(
              /system message is not stored|non-empty string/,
            )
        },
      ),
      { numRuns: fcRuns(400) },
    )
  })

  it('is idempotent', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const once = snap(m)
        expect(snap(once)).toEqual(once)
      }),
      { numRuns: fcRuns(100) },
    )
  })

  it('snapshotJson drops undefined-valued keys only when asked, and never in arrays', () => {
    const value = { a: undefined, b: [1], c: { d: undefined } }
    expect(snapshotJson(value, DEFAULT_MESSAGE_LIMITS, true)).toEqual({ b: [1], c: {} })
    expect(() => snapshotJson(value, DEFAULT_MESSAGE_LIMITS)).toThrow(/at a:/)
    expect(() => snapshotJson({ b: [undefined] }, DEFAULT_MESSAGE_LIMITS, true)).toThrow(/at b\[0\]/)
  })
})

const word = fc.stringMatching(/^[a-z]{9,12}$/)
const sentence = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '))
const partArb = fc.oneof(
  sentence.map((text) => ({ type: 'text' as const, text })),
  sentence.map((text) => ({ type: 'reasoning' as const, text })),
  fc.tuple(fc.nat(), sentence, sentence).map(([n, input, output]) => ({
    type: 'tool-lookup' as const,
    toolCallId: `call_${n}`,
    state: 'output-available' as const,
    input: { q: input },
    output: { answer: output },
  })),
  fc.tuple(fc.nat(), sentence).map(([n, errorText]) => ({
    type: 'dynamic-tool' as const,
    toolName: 'search',
    toolCallId: `call_${n}`,
    state: 'output-error' as const,
    input: {},
    errorText,
  })),
  sentence.map((text) => ({ type: 'data-note' as const, data: { text } })),
)
const messageArb = fc
  .tuple(
    fc.uuid(),
    fc.constantFrom('user' as const, 'assistant' as const),
    fc.array(partArb, { minLength: 1, maxLength: 6 }),
  )
  .map(([id, role, parts]): UIMessageData => ({ id, role, parts }))

describe('ai-sdk/ui facts and text', () => {
  it('nothing links across messages: no tool uses or results, even with tool parts', () => {
    const facts = format.facts(snap(VALID_UI_MESSAGES[3]))
    expect(facts).toEqual({
      role: 'assistant',
      speaker: 'assistant',
      toolUses: [],
      toolResults: [],
      plainUser: false,
      defersCalls: false,
      pinned: false,
    })
    expect(format.facts(snap(VALID_UI_MESSAGES[0]))).toMatchObject({
      role: 'user',
      speaker: 'user',
      plainUser: true,
    })
  })

  it('text lists texts, reasoning, tool calls, outputs, errors, sources, data and file names', () => {
    expect(format.text(snap(VALID_UI_MESSAGES[3])).split('\n')).toEqual([
      'hmm',
      'Checking the weather',
      'weather {"ci":1}',
      'weather {"city":"Rome"}',
      'weather {"city":"Oslo"}',
      'weather {"city":"Oslo"}',
      'weather {"city":"Paris"}',
      '{"temp":20}',
      'weather {"city":"Lima"}',
      'down',
      'weather {"city":"Kyiv"}',
      'mcpSearch {"q":"z"}',
      'found',
      'Example',
      'https://example.com',
      'Report',
      'r.pdf',
      '{"city":"Paris","status":"done"}',
      'faster please',
    ])
    expect(format.text(snap(VALID_UI_MESSAGES[1]))).toBe('see file\ncat.png')
  })

  it('contentKey, tokens, ids, show', () => {
    const m = snap(VALID_UI_MESSAGES[1])
    expect(format.contentKey(m)).toBe(JSON.stringify(['user', m.parts]))
    expect(format.contentKey(m)).toBe(format.contentKey({ ...m, metadata: { other: true } }))
    expect(format.estimateTokens(m)).toBe(4 + 2 + 1600)
    expect(format.idOf(m)).toBe('u2')
    expect(format.withId(m, 'u2')).toBe(m)
    expect(format.show(m, true)).toBe(m)
    expect(format.lateForm(m, [{ id: 'c', name: 'n' }])).toBe(m)
    expect(format.name).toBe('ai-sdk/ui')
  })
})

describe('ai-sdk/ui written messages', () => {
  it('redact keeps id, role, tool types, call ids, states and approval answers; valid for the SDK', async () => {
    const redacted = format.redact(snap(VALID_UI_MESSAGES[3]), '[gone]')
    expect(await sdkAccepts(redacted)).toBe(true)
    expect(redacted.id).toBe('a1')
    expect(redacted.metadata).toBeUndefined()
    expect(redacted.parts.slice(0, 10)).toEqual([
      { type: 'step-start' },
      { type: 'reasoning', text: '[gone]' },
      { type: 'text', text: '[gone]' },
      { type: 'tool-weather', toolCallId: 'c1', state: 'input-streaming' },
      { type: 'tool-weather', toolCallId: 'c2', state: 'input-available', input: {} },
      {
        type: 'tool-weather',
        toolCallId: 'c3',
        state: 'approval-requested',
        input: {},
        approval: { id: 'ap1' },
      },
      {
        type: 'tool-weather',
        toolCallId: 'c4',
        state: 'approval-responded',
        input: {},
        approval: { id: 'ap2', approved: true },
      },
      { type: 'tool-weather', toolCallId: 'c5', state: 'output-available', input: {}, output: '[gone]' },
      { type: 'tool-weather', toolCallId: 'c6', state: 'output-error', input: {}, errorText: '[gone]' },
      {
        type: 'tool-weather',
        toolCallId: 'c7',
        state: 'output-denied',
        input: {},
        approval: { id: 'ap3', approved: false },
      },
    ])
    expect(redacted.parts[10]).toEqual({
      type: 'dynamic-tool',
      toolName: 'mcpSearch',
      toolCallId: 'c8',
      state: 'output-available',
      input: {},
      output: '[gone]',
    })
    expect(redacted.parts.slice(11).every((p) => p.type === 'text')).toBe(true)
  })

  it('redact removes every original word and keeps every tool call id; prune marks it', async () => {
    await fc.assert(
      fc.asyncProperty(messageArb, async (m) => {
        const stored = snap(m)
        const redacted = format.redact(stored, '[redacted]')
        expect(await sdkAccepts(redacted)).toBe(true)
        const ids = (x: UIMessageData) => x.parts.flatMap((p) => ('toolCallId' in p ? [p.toolCallId] : []))
        expect(ids(redacted)).toEqual(ids(stored))
        const text = format.text(redacted)
        for (const w of format
          .text(stored)
          .split(/[^a-z]+/)
          .filter((w) => w.length >= 9))
          expect(text).not.toContain(w)
      }),
      { numRuns: fcRuns(60) },
    )
    const pruned = format.prune(snap(VALID_UI_MESSAGES[0]), '[gone]')
    expect(pruned.metadata).toEqual({ contextLedger: { pruned: true } })
    expect(format.notesOf(pruned)).toEqual({ pruned: true })
  })

  it('summary and repair are user messages with fresh ids and their notes', async () => {
    const summary = format.summary(['one', 'two'])
    expect(summary.id).toMatch(/^summary-[0-9a-f-]{36}$/)
    expect(summary).toMatchObject({
      role: 'user',
      parts: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
      metadata: { contextLedger: { summary: true } },
    })
    expect(format.summary(['x']).id).not.toBe(summary.id)
    expect(format.notesOf(summary)).toEqual({ summary: true })
    const repair = format.repair([{ id: 'c', name: 'n' }], 'interrupted')
    expect(repair).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'interrupted' }] })
    expect(format.notesOf(repair)).toEqual({ repair: 'missing-tool-result' })
    expect(format.notesOf(format.redact(repair, '[gone]'))).toEqual({ repair: 'missing-tool-result' })
    expect(await sdkAccepts(summary)).toBe(true)
    expect(await sdkAccepts(repair)).toBe(true)
  })
})

describe('ai-sdk/ui with the real streamText loop', () => {
  it('the UI messages a tool loop streams store exactly', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    }
    let step = 0
    const model = new MockLanguageModelV4({
      doStream: () => {
        step++
        const chunks: StreamPart[] =
          step === 1
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: 'c1',
                  toolName: 'weather',
                  input: '{"city":"Paris"}',
                },
                {
                  type: 'finish' as const,
                  finishReason: { unified: 'tool-calls' as const, raw: undefined },
                  usage,
                },
              ]
            : [
                { type: 'text-start' as const, id: 't1' },
                { type: 'text-delta' as const, id: 't1', delta: 'Warm.' },
                { type: 'text-end' as const, id: 't1' },
                {
                  type: 'finish' as const,
                  finishReason: { unified: 'stop' as const, raw: undefined },
                  usage,
                },
              ]
        return Promise.resolve({ stream: convertArrayToReadableStream(chunks) })
      },
    })
    const weather = tool({ inputSchema: z.object({ city: z.string() }), execute: () => ({ temp: 20 }) })
    const run = async (generateMessageId?: () => string) => {
      step = 0
      const result = streamText({ model, prompt: 'weather?', tools: { weather }, stopWhen: isStepCount(3) })
      const stream = toUIMessageStream({
        stream: result.stream,
        ...(generateMessageId === undefined ? {} : { generateMessageId }),
      })
      let last: UIMessage | undefined
      for await (const message of readUIMessageStream({ stream })) last = message
      return last
    }
    // Without a server-side id generator the streamed message's id is empty: the ledger refuses it.
    expect(refusal(await run()).path).toBe('id')
    const last = await run(() => 'msg-1')
    expect(last?.id).toBe('msg-1')
    const stored = snap(last)
    expect(stored).toEqual(JSON.parse(JSON.stringify(last)))
    expect(await sdkAccepts(stored)).toBe(true)
    const tools = stored.parts.filter((p) => p.type === 'tool-weather')
    expect(tools).toMatchObject([{ toolCallId: 'c1', state: 'output-available', output: { temp: 20 } }])
    expect(format.facts(stored).toolUses).toEqual([])
    expect(format.text(stored)).toContain('weather {"city":"Paris"}')
    expect(format.text(stored)).toContain('Warm.')
  })
})
