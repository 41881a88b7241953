/**
 * The `openai-agents` format on its own (no store): what it accepts (the SDK's own schema agrees), what
 * it refuses and where, the caller's notes stripped, withdrawal markers accepted only in their exact
 * shape, the facts of each item type, the repair items, and the rewritten forms.
 */
import { describe, expect, it } from 'vitest'
import { protocol } from '@openai/agents-core'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import {
  expandRepair,
  openaiAgentsFormat as format,
  withdrawalMarker,
  withdrawalOf,
  type AgentItemData,
} from '../../src/formats/openai-agents/index.js'
import { formatNamed } from '../../src/formats/index.js'
import { must, refusalOf } from './helpers.js'
import { INVALID_AGENT_ITEMS, VALID_AGENT_ITEMS } from './openai-agents-corpus.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)
const refusal = (m: unknown) => refusalOf(snap, m)
const sdkAccepts = (m: unknown) => protocol.ModelItem.safeParse(m).success
const item = (m: object) => m as AgentItemData
const DIGEST = 'ab'.repeat(32)

describe('openai-agents snapshot', () => {
  it('keeps every item the SDK accepts exactly, unknown keys included', () => {
    for (const m of VALID_AGENT_ITEMS) {
      expect(sdkAccepts(m), JSON.stringify(m)).toBe(true)
      expect(snap(m)).toStrictEqual(JSON.parse(JSON.stringify(m)))
    }
    expect(formatNamed('openai-agents')).toBe(format)
  })

  it('refuses what the SDK refuses, at the first bad field', () => {
    for (const { item: m, path } of INVALID_AGENT_ITEMS) {
      expect(sdkAccepts(m), JSON.stringify(m)).toBe(false)
      expect(refusal(m).path, JSON.stringify(m)).toBe(path)
    }
  })

  it('refuses an empty callId and bytes (stricter than the SDK, on purpose)', () => {
    expect(refusal({ type: 'function_call', callId: '', name: 'f', arguments: '{}' }).path).toBe('callId')
    const bytes = {
      type: 'function_call_result',
      callId: 'c',
      name: 'f',
      status: 'completed',
      output: { type: 'image', image: { data: new Uint8Array([1]) } },
    }
    expect(refusal(bytes).path).toBe('output.image.data')
  })

  it("strips a caller's providerData.contextLedger, dropping providerData when it empties", () => {
    const forged = { repair: 'missing-tool-result', summary: true, pruned: true }
    expect(snap({ role: 'user', content: 'x', providerData: { contextLedger: forged } })).toStrictEqual({
      role: 'user',
      content: 'x',
    })
    const kept = snap({ type: 'unknown', providerData: { contextLedger: forged, other: 1 } })
    expect(kept).toStrictEqual({ type: 'unknown', providerData: { other: 1 } })
    expect(format.notesOf(kept)).toBeUndefined()
    // A forged repair container is an ordinary unknown item: it answers nothing.
    const container = snap({
      type: 'unknown',
      providerData: { contextLedger: { repair: 'missing-tool-result', results: [] } },
    })
    expect(format.facts(container).toolResults).toStrictEqual([])
  })
})

describe('openai-agents withdrawal markers', () => {
  it('keeps a marker in its exact shape, and reads it back', () => {
    const seqs = withdrawalMarker(
      {
        seqs: [
          [4, 7],
          [9, 10],
        ],
      },
      { id: 'op-1', digest: DIGEST },
      true,
    )
    expect(snap(seqs)).toStrictEqual(seqs)
    expect(withdrawalOf(seqs)).toStrictEqual({
      withdraw: {
        seqs: [
          [4, 7],
          [9, 10],
        ],
      },
      operation: { id: 'op-1', digest: DIGEST },
      pinned: true,
    })
    expect(format.idOf(seqs)).toBe('op:op-1')
    expect(format.facts(seqs)).toMatchObject({
      role: 'assistant',
      speaker: 'system',
      pinned: true,
      defersCalls: true,
    })
    const before = withdrawalMarker({ before: 12 })
    expect(snap(before)).toStrictEqual({
      type: 'unknown',
      providerData: { contextLedger: { withdraw: { before: 12 } } },
    })
    expect(format.idOf(before)).toBeUndefined()
    expect(format.facts(before).pinned).toBe(false)
    expect(format.display(seqs).content).toStrictEqual([{ text: '[withdrew seqs 4–6, 9 (operation op-1)]' }])
    expect(format.text(seqs)).toBe('')
    expect(format.estimateTokens(seqs)).toBe(0)
  })

  it('refuses anything that tries to be a marker and is not exactly one, at the bad field', () => {
    const note = (n: object, rest: object = {}) => ({
      type: 'unknown',
      providerData: { contextLedger: n },
      ...rest,
    })
    const cases: [unknown, string][] = [
      [note({ withdraw: { before: 1 } }, { id: 'x' }), 'id'],
      [
        { type: 'unknown', providerData: { contextLedger: { withdraw: { before: 1 } }, other: 1 } },
        'providerData.other',
      ],
      [{ role: 'user', content: 'x', providerData: { contextLedger: { withdraw: { before: 1 } } } }, 'type'],
      [note({ withdraw: { before: 1 }, repair: 'missing-tool-result' }), 'providerData.contextLedger.repair'],
      [note({ operation: { id: 'a', digest: DIGEST } }), 'providerData.contextLedger.withdraw'],
      [note({ withdraw: { before: -1 } }), 'providerData.contextLedger.withdraw.before'],
      [note({ withdraw: { before: 1.5 } }), 'providerData.contextLedger.withdraw.before'],
      [note({ withdraw: { before: 1, seqs: [] } }), 'providerData.contextLedger.withdraw.seqs'],
      [note({ withdraw: { seqs: [[3, 3]] } }), 'providerData.contextLedger.withdraw.seqs[0][1]'],
      [
        note({
          withdraw: {
            seqs: [
              [1, 5],
              [4, 6],
            ],
          },
        }),
        'providerData.contextLedger.withdraw.seqs[1][0]',
      ],
      [
        note({
          withdraw: {
            seqs: [
              [5, 6],
              [1, 2],
            ],
          },
        }),
        'providerData.contextLedger.withdraw.seqs[1][0]',
      ],
      [note({ withdraw: { seqs: [[1, 2, 3]] } }), 'providerData.contextLedger.withdraw.seqs[0]'],
      [note({ withdraw: { seqs: 'all' } }), 'providerData.contextLedger.withdraw.seqs'],
      [
        note({ withdraw: { before: 1 }, operation: { id: '', digest: DIGEST } }),
        'providerData.contextLedger.operation.id',
      ],
      [
        note({ withdraw: { before: 1 }, operation: { id: 'x'.repeat(257), digest: DIGEST } }),
        'providerData.contextLedger.operation.id',
      ],
      [
        note({ withdraw: { before: 1 }, operation: { id: 'a', digest: 'abc' } }),
        'providerData.contextLedger.operation.digest',
      ],
      [
        note({ withdraw: { before: 1 }, operation: { id: 'a', digest: DIGEST, at: 1 } }),
        'providerData.contextLedger.operation.at',
      ],
      [note({ withdraw: { before: 1 }, pinned: false }), 'providerData.contextLedger.pinned'],
    ]
    for (const [m, path] of cases) expect(refusal(m).path, JSON.stringify(m)).toBe(path)
    expect(() => withdrawalMarker({ seqs: [[2, 1]] })).toThrow(/not after/)
    expect(withdrawalOf({ type: 'unknown' })).toBeUndefined()
    expect(withdrawalOf(note({ withdraw: { before: 1 } }, { id: 'x' }))).toBeUndefined()
  })
})

describe('openai-agents facts', () => {
  const facts = (m: object) => format.facts(snap(m))
  it('reads each item type', () => {
    const [userItem, richUser, system, assistant, call, result] = VALID_AGENT_ITEMS
    expect(facts(must(userItem))).toStrictEqual({
      role: 'user',
      speaker: 'user',
      toolUses: [],
      toolResults: [],
      plainUser: true,
      defersCalls: false,
      pinned: false,
    })
    expect(facts(must(richUser)).plainUser).toBe(true)
    expect(facts(must(system))).toMatchObject({
      role: 'user',
      speaker: 'system',
      plainUser: true,
      defersCalls: false,
    })
    expect(facts(must(assistant))).toMatchObject({
      role: 'assistant',
      speaker: 'assistant',
      defersCalls: true,
    })
    expect(facts(must(call))).toMatchObject({
      role: 'assistant',
      toolUses: [{ id: 'call_1', name: 'weather', path: 'callId' }],
      defersCalls: true,
    })
    expect(facts(must(result))).toMatchObject({
      role: 'user',
      speaker: 'tool',
      plainUser: false,
      toolResults: [{ id: 'call_1', status: 'success', path: 'callId' }],
      defersCalls: true,
    })
    const byType = new Map(VALID_AGENT_ITEMS.map((m) => [String(m.type), m]))
    for (const type of ['computer_call', 'shell_call', 'apply_patch_call', 'program'])
      expect(facts(must(byType.get(type))).toolUses[0]?.name).toBe(type)
    expect(facts(must(byType.get('apply_patch_call_output'))).toolResults[0]?.status).toBe('error')
    expect(facts(must(VALID_AGENT_ITEMS[7])).toolResults[0]?.status).toBe('error')
    for (const type of ['reasoning', 'hosted_tool_call', 'tool_search_call', 'tool_search_output', 'unknown'])
      expect(facts(must(byType.get(type))), type).toMatchObject({
        role: 'assistant',
        toolUses: [],
        toolResults: [],
        defersCalls: true,
      })
    expect(facts(must(byType.get('compaction')))).toMatchObject({
      role: 'user',
      speaker: 'system',
      plainUser: true,
      defersCalls: false,
    })
  })

  it('finds the searchable text of each item, and none in a compaction item', () => {
    const texts = VALID_AGENT_ITEMS.map((m) => format.text(snap(m))).join('\n')
    for (const word of [
      'Paris',
      'hello there',
      'notes.pdf',
      'Answer briefly',
      'It is sunny',
      'weather {"city"',
      'rain',
      'a chart',
      'ls -la',
      'warning: x',
      '+new',
      'conflict',
      'print(1)',
      'found zeppelins',
      'calendar',
      'raw thoughts',
    ])
      expect(texts).toContain(word)
    expect(format.text(snap({ type: 'compaction', encrypted_content: 'opaque' }))).toBe('')
    for (const m of VALID_AGENT_ITEMS) expect(format.estimateTokens(snap(m))).toBeGreaterThan(0)
    // An image costs a fixed amount, not its characters.
    const image = format.estimateTokens(
      item({ role: 'user', content: [{ type: 'input_image', image: 'x'.repeat(100_000) }] }),
    )
    expect(image).toBeLessThan(2000)
  })
})

describe('openai-agents repair and rewrites', () => {
  it('answers one call with its own result item, several with a container the adapter expands', () => {
    const one = format.repair([{ id: 'c1', name: 'weather' }], 'interrupted')
    expect(one).toStrictEqual({
      type: 'function_call_result',
      callId: 'c1',
      name: 'weather',
      status: 'incomplete',
      output: 'interrupted',
      providerData: { contextLedger: { repair: 'missing-tool-result' } },
    })
    expect(format.notesOf(one)).toStrictEqual({ repair: 'missing-tool-result' })
    expect(format.facts(one).toolResults).toStrictEqual([{ id: 'c1', status: 'error', path: 'callId' }])
    expect(expandRepair(one)).toStrictEqual([
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'weather',
        status: 'incomplete',
        output: 'interrupted',
      },
    ])
    const many = format.repair(
      [
        { id: 'c1', name: 'weather' },
        { id: 's1', name: 'shell_call' },
        { id: 'a1', name: 'apply_patch_call' },
        { id: 'p1', name: 'program' },
        { id: 'k1', name: 'computer_call' },
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
    expect(format.facts(many).toolResults.map((r) => r.id)).toStrictEqual(['c1', 's1', 'a1', 'p1', 'k1'])
    const expanded = expandRepair(many)
    expect(expanded.map((r) => r.type)).toStrictEqual([
      'function_call_result',
      'shell_call_output',
      'apply_patch_call_output',
      'program_output',
      'computer_call_result',
    ])
    for (const r of expanded) {
      expect(sdkAccepts(r)).toBe(true)
      expect(JSON.stringify(r)).not.toContain('contextLedger')
    }
    // The store re-reads the repair through snapshot in check: it stays a valid item.
    expect(() => snap(many)).not.toThrow()
    expect(format.display(many).content).toHaveLength(5)
    expect(expandRepair(item({ role: 'user', content: 'x' }))).toStrictEqual([{ role: 'user', content: 'x' }])
  })

  it('shows a late result as a user message naming the call', () => {
    const result = snap(VALID_AGENT_ITEMS[5])
    const late = format.lateForm(result, [{ id: 'call_1', name: 'weather' }])
    expect(late).toMatchObject({ role: 'user', content: [{ type: 'input_text' }] })
    expect(format.text(late)).toMatch(/call_1.*weather[\s\S]*sunny/)
    expect(format.facts(late).toolResults).toStrictEqual([])
    expect(sdkAccepts(late)).toBe(true)
    expect(format.lateForm(result, [{ id: 'other', name: 'x' }])).toBe(result)
  })

  it('cuts long tool outputs in the window form only', () => {
    const long = 'x'.repeat(5000)
    const fn = item({
      type: 'function_call_result',
      callId: 'c',
      name: 'f',
      status: 'completed',
      output: long,
    })
    expect((must(format.truncate(fn)) as unknown as { output: string }).output).toMatch(
      /<truncated chars="4600"\/>/,
    )
    const shell = item({
      type: 'shell_call_output',
      callId: 's',
      output: [{ stdout: long, stderr: 'short', outcome: { type: 'timeout' } }],
    })
    const cut = must(format.truncate(shell)) as unknown as { output: { stdout: string; stderr: string }[] }
    expect(cut.output[0]?.stdout.length).toBeLessThan(500)
    expect(cut.output[0]?.stderr).toBe('short')
    const parts = item({
      type: 'function_call_result',
      callId: 'c',
      name: 'f',
      status: 'completed',
      output: [
        { type: 'input_text', text: 'ok' },
        { type: 'input_image', image: 'data' },
      ],
    })
    expect((must(format.truncate(parts)) as unknown as { output: unknown }).output).toStrictEqual([
      { type: 'input_text', text: 'ok' },
      { type: 'input_text', text: '[input_image]' },
    ])
    expect(format.truncate(item({ role: 'user', content: long }))).toBeUndefined()
    expect(format.truncate(snap(VALID_AGENT_ITEMS[5] as object))).toBeUndefined()
  })

  it('redacts every item type to a valid item without its text, ids and names kept', () => {
    for (const m of VALID_AGENT_ITEMS) {
      const redacted = format.redact(snap(m), '[redacted]')
      expect(sdkAccepts(redacted), JSON.stringify(redacted)).toBe(true)
      expect(() => snap(redacted)).not.toThrow()
      for (const word of [
        'Paris',
        'sunny',
        'ls -la',
        'print(1)',
        'raw thoughts',
        'zeppelins',
        'opaque',
        'conflict',
      ])
        expect(JSON.stringify(redacted)).not.toContain(word)
      expect(format.facts(redacted).toolUses.map((u) => u.id)).toStrictEqual(
        format.facts(snap(m)).toolUses.map((u) => u.id),
      )
      expect(format.facts(redacted).toolResults.map((u) => u.id)).toStrictEqual(
        format.facts(snap(m)).toolResults.map((u) => u.id),
      )
    }
    const pruned = format.prune(format.repair([{ id: 'c', name: 'f' }], 'gone'), '[pruned]')
    expect(format.notesOf(pruned)).toStrictEqual({ repair: 'missing-tool-result', pruned: true })
    const marker = withdrawalMarker({ before: 3 })
    expect(format.redact(marker, '[redacted]')).toBe(marker)
  })

  it('writes summaries and prompts as user messages, and displays calls and results', () => {
    const summary = format.summary(['one', 'two'])
    expect(format.notesOf(summary)).toStrictEqual({ summary: true })
    expect(format.text(summary)).toBe('one\ntwo')
    expect(format.facts(format.prompt('go')).plainUser).toBe(true)
    const call = format.display(snap(VALID_AGENT_ITEMS[4]))
    expect(call.content).toStrictEqual([
      { toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Paris' } } },
    ])
    const result = format.display(snap(VALID_AGENT_ITEMS[5]))
    expect(result).toMatchObject({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'call_1', status: 'success', content: [{ text: 'sunny' }] } }],
    })
    const reasoning = format.display(snap(must(VALID_AGENT_ITEMS.find((m) => m.type === 'reasoning'))))
    expect(reasoning.content[0]).toStrictEqual({
      reasoning: { text: 'Thinking about the weather.\nraw thoughts' },
    })
    for (const m of VALID_AGENT_ITEMS) expect(format.display(snap(m)).content.length).toBeGreaterThan(0)
    const shown = snap(VALID_AGENT_ITEMS[3])
    expect(format.show(shown, true)).toBe(shown)
    expect(format.withId(shown, 'x')).toBe(shown)
  })
})
