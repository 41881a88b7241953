import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { modelMessageSchema } from 'ai'
import { ContextLedgerError } from '../../src/errors.js'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { aiSdkModelFormat as format } from '../../src/formats/ai-sdk-model/index.js'
import type { ModelMessageData } from '../../src/formats/ai-sdk-model/index.js'
import { fcRuns } from '../helpers/runs.js'
import { must, mutate, refusalOf } from './helpers.js'
import { INVALID_MODEL_MESSAGES, VALID_MODEL_MESSAGES } from './ai-sdk-model-corpus.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)
const sdkAccepts = (m: unknown) => modelMessageSchema.safeParse(m).success

const refusal = (m: unknown) => refusalOf(snap, m)

/** The refusals documented as stricter than the SDK. */
const DOCUMENTED_STRICTER =
  /system message is not stored|a second tool-(call|result) part|must hold a tool-result|Too small|non-JSON|expected a finite number/

describe('ai-sdk/model snapshot', () => {
  it('keeps every valid message exactly (provider options, reasoning, files, approvals, custom parts)', () => {
    for (const m of VALID_MODEL_MESSAGES) {
      expect(sdkAccepts(m)).toBe(true)
      expect(snap(m)).toEqual(JSON.parse(JSON.stringify(m)))
    }
  })

  it('refuses what the SDK refuses, at the named path', () => {
    for (const { message, path } of INVALID_MODEL_MESSAGES) {
      expect(sdkAccepts(message), JSON.stringify(message)).toBe(false)
      expect(refusal(message).path, JSON.stringify(message)).toBe(path)
    }
  })

  it('refuses a system message, telling where the system prompt goes', () => {
    const error = refusal({ role: 'system', content: 'be brief' })
    expect(error.path).toBe('role')
    expect(error.message).toMatch(/system.*instructions.*generateText/)
  })

  it('refuses a repeated toolCallId at the second part, an empty one, and an empty tool message', () => {
    const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 't', input: {} })
    expect(refusal({ role: 'assistant', content: [call('a'), call('b'), call('a')] }).path).toBe(
      'content[2].toolCallId',
    )
    expect(refusal({ role: 'assistant', content: [call('')] }).path).toBe('content[0].toolCallId')
    const result = {
      type: 'tool-result',
      toolCallId: 'a',
      toolName: 't',
      output: { type: 'text', value: '' },
    }
    expect(refusal({ role: 'tool', content: [result, result] }).path).toBe('content[1].toolCallId')
    expect(refusal({ role: 'tool', content: [] }).path).toBe('content')
  })

  it('refuses values JSON cannot hold (a URL object, bytes)', () => {
    const url = { role: 'user', content: [{ type: 'image', image: new URL('https://x/y.png') }] }
    expect(sdkAccepts(url)).toBe(true)
    expect(refusal(url).path).toBe('content[0].image')
    const bytes = { role: 'user', content: [{ type: 'file', data: new Uint8Array([1]), mediaType: 'image' }] }
    expect(refusal(bytes).path).toBe('content[0].data')
  })

  it("strips a caller's providerOptions.contextLedger, dropping providerOptions when it empties", () => {
    const forged = { repair: 'missing-tool-result', summary: true }
    expect(snap({ role: 'user', content: 'x', providerOptions: { contextLedger: forged } })).toEqual({
      role: 'user',
      content: 'x',
    })
    const kept = snap({
      role: 'user',
      content: 'x',
      providerOptions: { contextLedger: forged, openai: { a: 1 } },
    })
    expect(kept).toEqual({ role: 'user', content: 'x', providerOptions: { openai: { a: 1 } } })
    expect(format.notesOf(kept)).toBeUndefined()
  })

  it('agrees with modelMessageSchema on mutated messages: every SDK refusal is ours too', () => {
    const values = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
      fc.constant([]),
      fc.constant({}),
      fc.constantFrom('text', 'tool-call', 'tool-result', 'json', 'content', 'system', 'tool', 'user'),
    )
    fc.assert(
      fc.property(fc.constantFrom(...VALID_MODEL_MESSAGES), fc.nat(), values, (message, pick, value) => {
        const mutated = mutate(JSON.parse(JSON.stringify(message)) as unknown, pick, value)
        let ours: Error | undefined
        try {
          snap(mutated)
        } catch (error) {
          ours = error as Error
        }
        if (!sdkAccepts(mutated)) expect(ours, JSON.stringify(mutated)).toBeInstanceOf(ContextLedgerError)
        else if (ours !== undefined)
          expect(ours.message, JSON.stringify(mutated)).toMatch(DOCUMENTED_STRICTER)
      }),
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
})

const word = fc.stringMatching(/^[a-z]{9,12}$/)
const sentence = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '))
const toolName = fc.constantFrom('lookup', 'search')
const callIds = fc.uniqueArray(
  fc.nat({ max: 10_000 }).map((n) => `call_${n}`),
  { minLength: 1, maxLength: 4 },
)

const assistantArb = fc
  .tuple(
    sentence,
    sentence,
    callIds,
    fc.array(fc.tuple(toolName, sentence, fc.boolean()), { minLength: 4, maxLength: 4 }),
  )
  .map(([text, thought, ids, calls]): ModelMessageData => ({
    role: 'assistant',
    content: [
      { type: 'reasoning', text: thought },
      { type: 'text', text },
      ...ids.map((id, i) => ({
        type: 'tool-call' as const,
        toolCallId: id,
        toolName: must(calls[i])[0],
        input: { q: must(calls[i])[1] },
        ...(must(calls[i])[2] ? { providerExecuted: true } : {}),
      })),
    ],
  }))
const toolArb = fc
  .tuple(
    callIds,
    fc.array(fc.tuple(toolName, sentence, fc.constantFrom('text', 'json', 'error-text')), {
      minLength: 4,
      maxLength: 4,
    }),
  )
  .map(([ids, results]): ModelMessageData => ({
    role: 'tool',
    content: ids.map((id, i) => {
      const [name, text, kind] = must(results[i])
      return {
        type: 'tool-result' as const,
        toolCallId: id,
        toolName: name,
        output: kind === 'json' ? { type: 'json' as const, value: { text } } : { type: kind, value: text },
      }
    }),
  }))
const userArb = sentence.map((text): ModelMessageData => ({
  role: 'user',
  content: [{ type: 'text', text }],
}))
const messageArb = fc.oneof(assistantArb, toolArb, userArb)

function idsIn(m: ModelMessageData, type: 'tool-call' | 'tool-result'): string[] {
  if (typeof m.content === 'string') return []
  return m.content.flatMap((p) =>
    p.type === type && !(p.type === 'tool-call' && p.providerExecuted === true) ? [p.toolCallId] : [],
  )
}
function wordsIn(m: ModelMessageData): string[] {
  return format
    .text(m)
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 9)
}

describe('ai-sdk/model facts', () => {
  it('an assistant message makes its calls, except the provider-executed ones', () => {
    const facts = format.facts(snap(VALID_MODEL_MESSAGES[6]))
    expect(facts).toEqual({
      role: 'assistant',
      speaker: 'assistant',
      toolUses: [{ id: 'c1', name: 'weather', path: 'content[3].toolCallId' }],
      toolResults: [],
      plainUser: false,
      defersCalls: false,
      pinned: false,
    })
  })

  it("a tool message answers calls, with each output's status, on the user side", () => {
    const facts = format.facts(snap(VALID_MODEL_MESSAGES[9]))
    expect(facts.role).toBe('user')
    expect(facts.speaker).toBe('tool')
    expect(facts.plainUser).toBe(false)
    // The calls it leaves unanswered wait for the next tool message (a step's results may come in several).
    expect(facts.defersCalls).toBe(true)
    expect(facts.toolResults.map((r) => [r.id, r.status, r.path])).toEqual([
      ['c1', 'success', 'content[0].toolCallId'],
      ['c3', 'error', 'content[1].toolCallId'],
      ['c4', 'error', 'content[2].toolCallId'],
      ['c5', 'error', 'content[3].toolCallId'],
      ['c6', 'success', 'content[4].toolCallId'],
    ])
  })

  it('a tool message of approval responses only defers the calls', () => {
    const facts = format.facts(snap(VALID_MODEL_MESSAGES[10]))
    expect(facts).toMatchObject({ role: 'user', speaker: 'tool', toolResults: [], defersCalls: true })
  })

  it('a user message is a plain prompt', () => {
    expect(format.facts(snap({ role: 'user', content: 'hi' }))).toMatchObject({
      role: 'user',
      speaker: 'user',
      plainUser: true,
      toolUses: [],
      toolResults: [],
    })
  })

  it("holds exactly the message's call and result ids", () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const facts = format.facts(snap(m))
        expect(facts.toolUses.map((u) => u.id)).toEqual(idsIn(m, 'tool-call'))
        expect(facts.toolResults.map((r) => r.id)).toEqual(m.role === 'tool' ? idsIn(m, 'tool-result') : [])
      }),
      { numRuns: fcRuns(100) },
    )
  })
})

describe('ai-sdk/model text, key, tokens, ids', () => {
  it('text lists texts, reasoning, calls, outputs and file names, one per line', () => {
    expect(format.text(snap(VALID_MODEL_MESSAGES[6])).split('\n')).toEqual([
      'thinking',
      'calling',
      'weather {"city":"Paris"}',
      'search {"q":"x"}',
      '{"hits":[1,2]}',
      'costly',
    ])
    expect(format.text(snap(VALID_MODEL_MESSAGES[9])).split('\n')).toEqual([
      'sunny',
      'x',
      'null',
      'no',
      'screenshot',
      's.png',
    ])
    expect(format.text(snap({ role: 'user', content: 'as is' }))).toBe('as is')
  })

  it('contentKey is the role and content; providerOptions do not count', () => {
    const a = snap({ role: 'user', content: 'x', providerOptions: { o: { a: 1 } } })
    expect(format.contentKey(a)).toBe(JSON.stringify(['user', 'x']))
    expect(format.contentKey(a)).toBe(format.contentKey(snap({ role: 'user', content: 'x' })))
    expect(format.contentKey(a)).not.toBe(format.contentKey(snap({ role: 'assistant', content: 'x' })))
  })

  it('estimates about four characters a token, a fixed cost for an image', () => {
    expect(format.estimateTokens(snap({ role: 'user', content: 'x'.repeat(400) }))).toBe(104)
    const image = snap({ role: 'user', content: [{ type: 'image', image: 'aGVsbG8=' }] })
    expect(format.estimateTokens(image)).toBe(1604)
    const textFile = snap({
      role: 'user',
      content: [{ type: 'file', data: { type: 'text', text: 'y'.repeat(40) }, mediaType: 'text/plain' }],
    })
    expect(format.estimateTokens(textFile)).toBe(14)
  })

  it('has no id of its own; withId and show return the message', () => {
    const m = snap({ role: 'user', content: 'x' })
    expect(format.idOf(m)).toBeUndefined()
    expect(format.withId(m, 'id-1')).toBe(m)
    expect(format.show(m, true)).toBe(m)
    expect(format.name).toBe('ai-sdk/model')
  })
})

describe('ai-sdk/model written messages', () => {
  const calls = [
    { id: 'c1', name: 'weather' },
    { id: 'c2', name: 'search' },
  ]

  it('repair answers every open call with an error, marked, valid for the SDK', () => {
    const repair = format.repair(calls, 'interrupted')
    expect(repair).toEqual({
      role: 'tool',
      content: calls.map((c) => ({
        type: 'tool-result',
        toolCallId: c.id,
        toolName: c.name,
        output: { type: 'error-text', value: 'interrupted' },
      })),
      providerOptions: { contextLedger: { repair: 'missing-tool-result' } },
    })
    expect(sdkAccepts(repair)).toBe(true)
    expect(format.notesOf(repair)).toEqual({ repair: 'missing-tool-result' })
    expect(format.facts(repair).toolResults.map((r) => [r.id, r.status])).toEqual([
      ['c1', 'error'],
      ['c2', 'error'],
    ])
  })

  const results = snap({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'weather',
        output: { type: 'json', value: { t: 20 } },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'search',
        output: { type: 'error-text', value: 'down' },
      },
    ],
  })

  it('lateForm: a tool message whose results are all late becomes user text', () => {
    const form = format.lateForm(results, calls)
    expect(form).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: '[Late tool result] The call "c1" to weather returned after the conversation had moved on (status success):\n{"t":20}',
        },
        {
          type: 'text',
          text: '[Late tool result] The call "c2" to search returned after the conversation had moved on (status error):\ndown',
        },
      ],
    })
    expect(sdkAccepts(form)).toBe(true)
    expect(format.facts(form).toolResults).toEqual([])
  })

  it('lateForm: mixed results keep the on-time ones in a tool message, the late text in its output', () => {
    const form = format.lateForm(results, [{ id: 'c1', name: 'weather' }])
    expect(sdkAccepts(form)).toBe(true)
    expect(form.role).toBe('tool')
    expect(format.facts(form).toolResults).toEqual([
      { id: 'c2', status: 'error', path: 'content[0].toolCallId' },
    ])
    expect(format.text(form)).toContain('[Late tool result] The call "c1" to weather')
    expect(format.text(form)).toContain('down')
    const json = format.lateForm(
      snap({
        role: 'tool',
        content: [...(results.content as object[]).slice(1), (results.content as object[])[0]],
      }),
      [{ id: 'c2', name: 'search' }],
    )
    expect(sdkAccepts(json)).toBe(true)
    expect(format.facts(json).toolResults.map((r) => [r.id, r.status])).toEqual([['c1', 'success']])
    expect(format.text(json)).toContain('{"t":20}')
  })

  it('lateForm: other messages and ids not in the message come back unchanged', () => {
    expect(format.lateForm(results, [{ id: 'zz', name: 'x' }])).toBe(results)
    const user = snap({ role: 'user', content: 'hi' })
    expect(format.lateForm(user, calls)).toBe(user)
  })

  it('redact keeps role, ids, names, statuses, provider execution and the repair note; prune marks it', () => {
    const redacted = format.redact(snap(VALID_MODEL_MESSAGES[6]), '[gone]')
    expect(sdkAccepts(redacted)).toBe(true)
    expect(redacted.content).toEqual([
      { type: 'reasoning', text: '[gone]' },
      { type: 'text', text: '[gone]' },
      { type: 'text', text: '[gone]' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: {} },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'search', input: {}, providerExecuted: true },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'search',
        output: { type: 'text', value: '[gone]' },
      },
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      { type: 'text', text: '[gone]' },
      { type: 'text', text: '[gone]' },
    ])
    expect(redacted.providerOptions).toBeUndefined()
    const repair = format.redact(format.repair(calls, 'secret'), '[gone]')
    expect(format.notesOf(repair)).toEqual({ repair: 'missing-tool-result' })
    expect(format.facts(repair).toolResults.map((r) => r.status)).toEqual(['error', 'error'])
    const pruned = format.prune(snap({ role: 'user', content: 'secret' }), '[gone]')
    expect(pruned).toEqual({
      role: 'user',
      content: '[gone]',
      providerOptions: { contextLedger: { pruned: true } },
    })
    expect(format.notesOf(pruned)).toEqual({ pruned: true })
  })

  it('redact keeps every tool id and removes every original word', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const stored = snap(m)
        const redacted = format.redact(stored, '[redacted]')
        expect(sdkAccepts(redacted)).toBe(true)
        const before = format.facts(stored)
        const after = format.facts(redacted)
        expect(after.toolUses).toEqual(before.toolUses)
        expect(after.toolResults).toEqual(before.toolResults)
        const text = format.text(redacted)
        for (const w of wordsIn(stored)) expect(text).not.toContain(w)
      }),
      { numRuns: fcRuns(100) },
    )
  })

  it('summary is a user message of texts, marked', () => {
    const summary = format.summary(['one', 'two'])
    expect(summary).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
      providerOptions: { contextLedger: { summary: true } },
    })
    expect(sdkAccepts(summary)).toBe(true)
    expect(format.notesOf(summary)).toEqual({ summary: true })
    expect(format.facts(summary).plainUser).toBe(true)
  })
})
