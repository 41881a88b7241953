/**
 * The `langchain` format on its own (no store): what it accepts (LangChain's own serialized messages,
 * which LangChain revives), what it refuses and where, the caller's notes stripped, the facts of each
 * message type, the repair messages and their expansion, and the rewritten forms — each a message
 * LangChain revives.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from '@langchain/core/messages'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { formatNamed, MESSAGE_FORMATS } from '../../src/formats/index.js'
import {
  expandRepair,
  langchainFormat as format,
  type LangChainMessageData,
} from '../../src/formats/langchain/index.js'
import { ContextLedgerError } from '../../src/errors.js'
import { fcRuns } from '../helpers/runs.js'
import { must, mutate, refusalOf } from './helpers.js'
import { INVALID_LANGCHAIN_MESSAGES, corpusStored } from './langchain-corpus.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)
const refusal = (m: unknown) => refusalOf(snap, m)
const msg = (m: object) => m as LangChainMessageData
/** LangChain revives the messages and serializes them again. */
const revived = (ms: readonly LangChainMessageData[]): unknown =>
  JSON.parse(
    JSON.stringify(
      mapChatMessagesToStoredMessages(mapStoredMessagesToChatMessages(ms as unknown as StoredMessage[])),
    ),
  )
const STORED = corpusStored()
const byId = (id: string) => snap(must(STORED.find((m) => (m.data as { id?: string }).id === id)))

describe('langchain snapshot', () => {
  it('keeps every message LangChain serializes exactly, and LangChain revives each as it was', () => {
    for (const m of STORED) expect(snap(m)).toStrictEqual(m)
    expect(revived(STORED.map(snap))).toStrictEqual(STORED)
    expect(formatNamed('langchain')).toBe(format)
    expect(MESSAGE_FORMATS).toContain('langchain')
  })

  it('accepts what Python LangChain writes (null ids and names, extra data keys)', () => {
    const python = {
      type: 'human',
      data: {
        content: 'hi',
        additional_kwargs: {},
        response_metadata: {},
        type: 'human',
        name: null,
        id: null,
        example: false,
      },
    }
    expect(snap(python)).toStrictEqual(python)
    expect(format.idOf(snap(python))).toBeUndefined()
  })

  it('refuses what LangChain cannot revive or would revive otherwise, at the first bad field', () => {
    for (const { message, path } of INVALID_LANGCHAIN_MESSAGES)
      expect(refusal(message).path, JSON.stringify(message)).toBe(path)
    expect(
      refusal({ type: 'ai', data: { content: 'x', tool_calls: [{ name: 'f', args: {} }] } }).message,
    ).toMatch(/tool call needs a non-empty id/)
    expect(
      refusal({ type: 'human', data: { content_blocks: [{ type: 'text', text: 'x' }] } }).message,
    ).toMatch(/data\.content: .*content_blocks/)
    // LangChain itself refuses these two.
    expect(() =>
      mapStoredMessagesToChatMessages([{ type: 'tool', data: { content: 'x' } } as unknown as StoredMessage]),
    ).toThrow(/Tool call ID/)
    expect(() =>
      mapStoredMessagesToChatMessages([{ type: 'user', data: { content: 'x' } } as unknown as StoredMessage]),
    ).toThrow(/unexpected type/)
  })

  it('accepts only what LangChain revives with the calls the ledger pairs, and again after a round trip', () => {
    const values = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
      fc.constant([]),
      fc.constant({}),
      fc.constantFrom(
        'human',
        'ai',
        'tool',
        'system',
        'generic',
        'function',
        'tool_call',
        'text',
        'v1',
        'error',
      ),
    )
    fc.assert(
      fc.property(fc.constantFrom(...STORED), fc.nat(), values, (message, pick, value) => {
        const mutated = mutate(structuredClone(message), pick, value)
        let accepted: LangChainMessageData
        try {
          accepted = snap(mutated)
        } catch (error) {
          expect(error, JSON.stringify(mutated)).toBeInstanceOf(ContextLedgerError)
          return
        }
        // LangChain changes what it revives from (v1 content): it gets a copy.
        const [revivedMessage] = mapStoredMessagesToChatMessages([
          structuredClone(accepted) as unknown as StoredMessage,
        ])
        const m = must(revivedMessage) as { tool_calls?: { id?: string }[]; tool_call_id?: string }
        const facts = format.facts(accepted)
        expect(
          (m.tool_calls ?? []).map((c) => c.id),
          JSON.stringify(mutated),
        ).toStrictEqual(facts.toolUses.map((u) => u.id))
        if (accepted.type === 'tool')
          expect(facts.toolResults.map((r) => r.id)).toStrictEqual([m.tool_call_id])
        // Serialized again (a checkpointer's state sent back): the same message for the ledger.
        const again = snap(
          JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages([must(revivedMessage)])[0])),
        )
        expect(format.contentKey(again), JSON.stringify(mutated)).toBe(format.contentKey(accepted))
        expect(format.facts(again)).toStrictEqual(facts)
      }),
      { numRuns: fcRuns(400) },
    )
  })

  it('refuses bytes (stricter than LangChain, on purpose)', () => {
    const bytes = {
      type: 'human',
      data: { content: [{ type: 'image', data: new Uint8Array([1]), mimeType: 'image/png' }] },
    }
    expect(refusal(bytes).path).toBe('data.content[0].data')
  })

  it("strips a caller's additional_kwargs.context_ledger, keeping the rest", () => {
    const forged = { repair: 'missing-tool-result', summary: true, pruned: true, results: [] }
    const kept = snap({
      type: 'tool',
      data: { content: 'x', tool_call_id: 'c', additional_kwargs: { context_ledger: forged, other: 1 } },
    })
    expect(kept).toStrictEqual({
      type: 'tool',
      data: { content: 'x', tool_call_id: 'c', additional_kwargs: { other: 1 } },
    })
    expect(format.notesOf(kept)).toBeUndefined()
    // A forged repair container is an ordinary ToolMessage: it answers its own call only.
    expect(format.facts(kept).toolResults).toStrictEqual([
      { id: 'c', status: 'success', path: 'data.tool_call_id' },
    ])
    const only = snap({
      type: 'human',
      data: { content: 'x', additional_kwargs: { context_ledger: forged } },
    })
    expect(only).toStrictEqual({ type: 'human', data: { content: 'x', additional_kwargs: {} } })
  })
})

describe('langchain facts', () => {
  it('reads each message type', () => {
    const prompt = { toolUses: [], toolResults: [], plainUser: true, defersCalls: false, pinned: false }
    expect(format.facts(byId('h-1'))).toStrictEqual({ role: 'user', speaker: 'user', ...prompt })
    expect(format.facts(byId('sys-1'))).toStrictEqual({ role: 'user', speaker: 'system', ...prompt })
    expect(format.facts(byId('chat-1'))).toStrictEqual({ role: 'user', speaker: 'user', ...prompt })
    expect(format.facts(byId('ai-1'))).toStrictEqual({
      role: 'assistant',
      speaker: 'assistant',
      // The tool_use block and the invalid call are not calls the ledger pairs.
      toolUses: [
        { id: 'call_1', name: 'weather', path: 'data.tool_calls[0].id' },
        { id: 'call_2', name: 'weather', path: 'data.tool_calls[1].id' },
      ],
      toolResults: [],
      plainUser: false,
      defersCalls: false,
      pinned: false,
    })
    expect(format.facts(byId('ai-3')).toolUses.map((u) => u.id)).toStrictEqual(['call_3'])
    expect(format.facts(byId('tool-1'))).toStrictEqual({
      role: 'user',
      speaker: 'tool',
      toolUses: [],
      toolResults: [{ id: 'call_1', status: 'success', path: 'data.tool_call_id' }],
      plainUser: false,
      defersCalls: true,
      pinned: false,
    })
    expect(format.facts(byId('tool-2')).toolResults[0]?.status).toBe('error')
    const chat = (role: string) => format.facts(snap({ type: 'generic', data: { content: 'x', role } }))
    expect(chat('assistant')).toMatchObject({ role: 'assistant', speaker: 'assistant', plainUser: false })
    expect(chat('system')).toMatchObject({ role: 'user', speaker: 'system', plainUser: true })
  })

  it('finds the searchable text of each message, and counts media at a fixed cost', () => {
    const texts = STORED.map((m) => format.text(snap(m))).join('\n')
    for (const word of [
      'Answer briefly.',
      'Look at this chart',
      'I should look it up',
      'weather {"city":"Paris"}',
      'weather {"city":"Lyon"}',
      'weather {"city":',
      'sunny, 24°C',
      'rain expected',
      'search {"q":"zeppelins"}',
      'found zeppelins',
      'raw thoughts',
    ])
      expect(texts).toContain(word)
    expect(texts).not.toContain('iVBOR')
    for (const m of STORED) expect(format.estimateTokens(snap(m))).toBeGreaterThan(0)
    const image = format.estimateTokens(
      msg({
        type: 'human',
        data: { content: [{ type: 'image', data: 'x'.repeat(100_000), mimeType: 'image/png' }] },
      }),
    )
    expect(image).toBeLessThan(2000)
    const text = format.estimateTokens(msg({ type: 'human', data: { content: 'x'.repeat(4000) } }))
    expect(text).toBeGreaterThanOrEqual(1000)
  })

  it('keys a message by what LangChain sends the model, not its metadata', () => {
    const ai = byId('ai-1')
    const again = revived([ai]) as LangChainMessageData[]
    expect(format.contentKey(must(again[0]))).toBe(format.contentKey(ai))
    const metadata = msg({ ...ai, data: { ...ai.data, response_metadata: {}, usage_metadata: null } })
    expect(format.contentKey(metadata)).toBe(format.contentKey(ai))
    const other = msg({ ...ai, data: { ...ai.data, content: 'changed' } })
    expect(format.contentKey(other)).not.toBe(format.contentKey(ai))
    const tool = byId('tool-1')
    const failed = msg({ ...tool, data: { ...tool.data, status: 'error' } })
    expect(format.contentKey(failed)).not.toBe(format.contentKey(tool))
    expect(format.idOf(ai)).toBe('ai-1')
    expect(format.withId(ai, 'other')).toBe(ai)
    expect(format.uniqueIds).toBe(true)
    expect(format.callIdsOnce).toBe(false)
  })
})

describe('langchain repair and rewrites', () => {
  it('answers one call with its own ToolMessage, several with a container expandRepair opens', () => {
    const one = format.repair([{ id: 'c1', name: 'weather' }], 'interrupted')
    expect(one).toStrictEqual({
      type: 'tool',
      data: {
        content: 'interrupted',
        additional_kwargs: { context_ledger: { repair: 'missing-tool-result' } },
        response_metadata: {},
        tool_call_id: 'c1',
        name: 'weather',
        status: 'error',
      },
    })
    expect(format.notesOf(one)).toStrictEqual({ repair: 'missing-tool-result' })
    expect(format.facts(one).toolResults).toStrictEqual([
      { id: 'c1', status: 'error', path: 'data.tool_call_id' },
    ])
    const [shown] = expandRepair(one)
    expect(shown?.data.additional_kwargs).toStrictEqual({})
    const many = format.repair(
      [
        { id: 'c1', name: 'weather' },
        { id: 'c2', name: 'search' },
        { id: 'c3', name: 'weather' },
      ],
      'interrupted',
    )
    expect(format.notesOf(many)?.repair).toBe('missing-tool-result')
    expect(format.facts(many)).toMatchObject({
      role: 'user',
      speaker: 'tool',
      plainUser: false,
      defersCalls: true,
    })
    expect(format.facts(many).toolResults).toStrictEqual(
      ['c1', 'c2', 'c3'].map((id, i) => ({
        id,
        status: 'error',
        path: `data.additional_kwargs.context_ledger.results[${i}].data.tool_call_id`,
      })),
    )
    const expanded = expandRepair(many)
    expect(expanded.map((m) => [m.type, (m.data as { tool_call_id: string }).tool_call_id])).toStrictEqual([
      ['tool', 'c1'],
      ['tool', 'c2'],
      ['tool', 'c3'],
    ])
    expect(JSON.stringify(expanded)).not.toContain('context_ledger')
    expect(revived(expanded)).toStrictEqual(expanded)
    // The store re-reads the repair through snapshot in check; the container is a valid ToolMessage.
    expect(() => snap(many)).not.toThrow()
    expect(revived([many])).toHaveLength(1)
    expect(format.text(many)).toBe('interrupted\ninterrupted\ninterrupted')
    expect(format.display(many).content).toHaveLength(3)
    expect(format.estimateTokens(many)).toBe(3 * format.estimateTokens(must(expanded[0])))
    const summary = format.summary(['s'])
    expect(expandRepair(summary)).toStrictEqual([
      {
        type: 'human',
        data: { content: [{ type: 'text', text: 's' }], additional_kwargs: {}, response_metadata: {} },
      },
    ])
  })

  it('shows a late result as a HumanMessage naming the call; a container keeps its on-time results', () => {
    const result = byId('tool-1')
    const late = format.lateForm(result, [{ id: 'call_1', name: 'weather' }])
    expect(late.type).toBe('human')
    expect(format.text(late)).toMatch(/call_1.*weather[\s\S]*sunny/)
    expect(format.facts(late)).toMatchObject({ toolResults: [], plainUser: true })
    expect(revived([late])).toStrictEqual([late])
    expect(format.lateForm(result, [{ id: 'other', name: 'x' }])).toBe(result)
    const many = format.repair(
      [
        { id: 'a', name: 'f' },
        { id: 'b', name: 'g' },
        { id: 'c', name: 'h' },
      ],
      'gone',
    )
    const partly = format.lateForm(many, [{ id: 'b', name: 'g' }])
    expect(format.facts(partly).toolResults.map((r) => r.id)).toStrictEqual(['a', 'c'])
    expect(format.notesOf(partly)?.repair).toBe('missing-tool-result')
    const all = format.lateForm(
      many,
      ['a', 'b', 'c'].map((id) => ({ id, name: 'f' })),
    )
    expect(all.type).toBe('human')
    expect(format.text(all).split('[Late tool result]')).toHaveLength(4)
  })

  it('cuts long tool outputs in the window form only', () => {
    const long = 'x'.repeat(5000)
    const tool = msg({ type: 'tool', data: { content: long, tool_call_id: 'c', artifact: long } })
    const cut = must(format.truncate(tool))
    expect(cut.data.content).toMatch(/<truncated chars="4600"\/>/)
    expect((cut.data as { artifact?: string }).artifact).toBe(long)
    const blocks = msg({
      type: 'tool',
      data: {
        content: [
          { type: 'text', text: 'ok' },
          { type: 'image_url', image_url: 'data:...' },
        ],
        tool_call_id: 'c',
      },
    })
    expect(must(format.truncate(blocks)).data.content).toStrictEqual([
      { type: 'text', text: 'ok' },
      { type: 'text', text: '[image_url]' },
    ])
    expect(format.truncate(msg({ type: 'human', data: { content: long } }))).toBeUndefined()
    expect(format.truncate(byId('tool-1'))).toBeUndefined()
    const many = format.repair(
      [
        { id: 'a', name: 'f' },
        { id: 'b', name: 'g' },
      ],
      long,
    )
    const cutMany = must(format.truncate(many))
    expect(format.facts(cutMany).toolResults.map((r) => r.id)).toStrictEqual(['a', 'b'])
    for (const r of expandRepair(cutMany)) expect(JSON.stringify(r.data.content).length).toBeLessThan(500)
  })

  it('redacts every message type to a message LangChain revives, without its text, ids and names kept', () => {
    for (const m of STORED) {
      const redacted = format.redact(snap(m), '[redacted]')
      expect(() => snap(redacted)).not.toThrow()
      expect(revived([redacted])).toHaveLength(1)
      for (const word of ['Paris', 'sunny', 'zeppelins', 'raw thoughts', 'iVBOR', 'trace', 'fake-model'])
        expect(JSON.stringify(redacted)).not.toContain(word)
      expect(format.idOf(redacted)).toBe(format.idOf(snap(m)))
      expect(format.facts(redacted).toolUses).toStrictEqual(format.facts(snap(m)).toolUses)
      expect(format.facts(redacted).toolResults).toStrictEqual(format.facts(snap(m)).toolResults)
    }
    const pruned = format.prune(format.repair([{ id: 'c', name: 'f' }], 'gone'), '[pruned]')
    expect(format.notesOf(pruned)).toStrictEqual({ repair: 'missing-tool-result', pruned: true })
    const many = format.repair(
      [
        { id: 'a', name: 'f' },
        { id: 'b', name: 'g' },
      ],
      'secret',
    )
    const prunedMany = format.prune(many, '[pruned]')
    expect(JSON.stringify(prunedMany)).not.toContain('secret')
    expect(format.facts(prunedMany).toolResults.map((r) => r.id)).toStrictEqual(['a', 'b'])
    expect(format.notesOf(prunedMany)).toStrictEqual({ repair: 'missing-tool-result', pruned: true })
  })

  it('writes summaries and prompts as HumanMessages, and displays calls and results', () => {
    const summary = format.summary(['one', 'two'])
    expect(format.notesOf(summary)).toStrictEqual({ summary: true })
    expect(format.text(summary)).toBe('one\ntwo')
    expect(format.facts(summary).plainUser).toBe(true)
    expect(format.prompt('go')).toStrictEqual({
      type: 'human',
      data: { content: 'go', additional_kwargs: {}, response_metadata: {} },
    })
    expect(revived([summary, format.prompt('go')])).toHaveLength(2)
    expect(format.display(byId('ai-1'))).toStrictEqual({
      role: 'assistant',
      content: [
        { reasoning: { text: 'I should look it up in two places.' } },
        { text: 'Checking both.' },
        { toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Paris' } } },
        { toolUse: { toolUseId: 'call_2', name: 'weather', input: { city: 'Lyon' } } },
      ],
      trackingId: 'ai-1',
    })
    expect(format.display(byId('tool-2'))).toMatchObject({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'call_2', status: 'error', content: [{ text: 'rain expected' }] } },
      ],
    })
    expect(format.display(byId('h-2')).content).toContainEqual({ text: '[image_url]' })
    for (const m of STORED) expect(format.display(snap(m)).content.length).toBeGreaterThan(0)
    const shown = byId('h-1')
    expect(format.show(shown, true)).toBe(shown)
  })
})
