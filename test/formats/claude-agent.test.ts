/**
 * The `claude-agent` format on its own (no store): it keeps the CLI's recorded entries exactly, refuses
 * what it must at the field (no `type`, a bad `uuid`, the ledger's notes key), derives the facts the
 * window needs (one call per assistant entry, results by `tool_use_id`, every entry deferring), the
 * searchable text and tokens, and rewrites entries (redacted, pruned, late, truncated, summary) in the
 * shape of a transcript entry; only the ledger's own forms pass `snapshotStored`.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/messages/limits.js'
import { formatNamed, MESSAGE_FORMATS } from '../../src/formats/index.js'
import { claudeAgentFormat as format, type ClaudeEntryData } from '../../src/formats/claude-agent/index.js'
import { fcRuns } from '../helpers/runs.js'
import { EntryMaker, FIXTURES, fixture, type Entry } from '../helpers/claude-format-entries.js'
import { refusalOf } from './helpers.js'

const snap = (m: unknown) => format.snapshot(m, DEFAULT_MESSAGE_LIMITS)
const stored = (m: unknown) => format.snapshotStored?.(m, DEFAULT_MESSAGE_LIMITS)
const entry = (e: Entry) => e as ClaudeEntryData
const ALL = FIXTURES.flatMap((name) => fixture(name))

describe('claude-agent snapshot', () => {
  it('keeps every entry the CLI wrote exactly, and is registered under its name', () => {
    for (const e of ALL) expect(snap(e)).toStrictEqual(e)
    expect(formatNamed('claude-agent')).toBe(format)
    expect(MESSAGE_FORMATS).toContain('claude-agent')
  })

  it('refuses an entry without type, a bad uuid and the ledger notes key, at the field', () => {
    expect(refusalOf(snap, { uuid: 'u' }).path).toBe('type')
    expect(refusalOf(snap, { type: '' }).path).toBe('type')
    expect(refusalOf(snap, { type: 3 }).path).toBe('type')
    expect(refusalOf(snap, 'user').path).toBe('type')
    expect(refusalOf(snap, null).path).toBe('type')
    expect(refusalOf(snap, { type: 'user', uuid: '' }).path).toBe('uuid')
    expect(refusalOf(snap, { type: 'user', uuid: 7 }).path).toBe('uuid')
    expect(refusalOf(snap, { type: 'user', uuid: null }).path).toBe('uuid')
    const notes = refusalOf(snap, { type: 'user', contextLedger: { pruned: true } })
    expect(notes.path).toBe('contextLedger')
    expect(notes.message).toContain('refused')
    // Any type the SDK may add is an entry; a missing uuid is fine.
    expect(snap({ type: 'some-future-entry', data: [1] })).toStrictEqual({
      type: 'some-future-entry',
      data: [1],
    })
  })

  it('uses uuid as the id and compares entries by canonical JSON', () => {
    const e = new EntryMaker().prompt('hi')
    expect(format.idOf(entry(e))).toBe(e.uuid)
    expect(format.idOf(entry(EntryMaker.bookkeeping('mode')))).toBeUndefined()
    const reordered = Object.fromEntries(Object.entries(e).reverse()) as Entry
    expect(format.contentKey(entry(reordered))).toBe(format.contentKey(entry(e)))
    expect(format.contentKey(entry({ ...e, timestamp: 'later' }))).not.toBe(format.contentKey(entry(e)))
    expect(format.withId(entry(e), 'other')).toBe(e)
    expect(format.uniqueIds).toBe(true)
    expect(format.idPath).toBe('uuid')
  })
})

describe('claude-agent facts', () => {
  it('reads the recorded turn: a prompt, one call per assistant entry, its result, the rest system', () => {
    const entries = fixture('format-tool-call')
    const speakers = entries.map((e) => format.facts(entry(e)).speaker)
    expect(speakers[2]).toBe('user')
    expect(speakers.slice(11, 14)).toStrictEqual(['assistant', 'assistant', 'tool'])
    expect(speakers.filter((s) => s === 'system')).toHaveLength(entries.length - 5)
    const call = format.facts(entry(entries[12] as Entry))
    expect(call.toolUses).toStrictEqual([
      { id: 'toolu_1', name: 'mcp__calc__add', path: 'message.content[0].id' },
    ])
    const result = format.facts(entry(entries[13] as Entry))
    expect(result.toolResults).toStrictEqual([
      { id: 'toolu_1', status: 'success', path: 'message.content[0].tool_use_id' },
    ])
    for (const e of entries) expect(format.facts(entry(e)).defersCalls).toBe(true)
    expect(entries.filter((e) => format.facts(entry(e)).plainUser)).toStrictEqual([entries[2]])
  })

  it('takes is_error as a failed result, and server tools as no call', () => {
    const m = new EntryMaker()
    expect(format.facts(entry(m.result('c1', 'boom', true))).toolResults[0]?.status).toBe('error')
    const server = m.assistant({
      type: 'server_tool_use',
      id: 'srv_1',
      name: 'web_search',
      input: { query: 'q' },
    })
    expect(format.facts(entry(server)).toolUses).toStrictEqual([])
    expect(format.text(entry(server))).toBe('web_search {"query":"q"}')
  })
})

describe('claude-agent text and tokens', () => {
  it('indexes texts, calls and results, a system note, summaries and titles; not attachments or costs', () => {
    const entries = fixture('format-tool-call-resume-compact')
    const text = (i: number) => format.text(entry(entries[i] as Entry))
    expect(text(2)).toBe('What is 40 + 2? Use the add tool.')
    expect(text(12)).toBe('mcp__calc__add {"a":40,"b":2}')
    expect(text(13)).toBe('42')
    expect(text(31)).toBe('Conversation compacted')
    expect(text(14)).toBe('')
    expect(text(18)).toBe('')
    expect(format.text(entry({ type: 'summary', summary: 'zeppelins', leafUuid: 'x' }))).toBe('zeppelins')
    expect(format.text(entry({ type: 'custom-title', customTitle: 'Trip' }))).toBe('Trip')
    expect(format.text(entry({ type: 'ai-title', aiTitle: 'Airships' }))).toBe('Airships')
    expect(format.estimateTokens(entry(entries[18] as Entry))).toBe(0)
    expect(format.estimateTokens(entry(entries[3] as Entry))).toBeGreaterThan(100)
    expect(format.estimateTokens(entry(entries[2] as Entry))).toBeGreaterThan(4)
  })
})

const REDACTED = '[redacted]'
const SECRETS = ['40 + 2', 'is 42', '"42"', 'Let me check', '<system-reminder>', '/tmp/cas', 'a":40']

describe('claude-agent rewrites', () => {
  it('redacts and prunes every entry to its own shape: chain, kind, call ids and names kept, no text', () => {
    for (const e of fixture('format-tool-call-resume-compact')) {
      const pruned = format.prune(entry(e), REDACTED)
      const json = JSON.stringify(pruned)
      for (const s of SECRETS) expect(json).not.toContain(s)
      for (const key of ['type', 'uuid', 'parentUuid', 'timestamp', 'sessionId', 'isSidechain', 'subtype'])
        expect(pruned[key]).toStrictEqual(e[key])
      expect(format.notesOf(pruned)).toStrictEqual({ pruned: true })
      expect(format.notesOf(format.redact(entry(e), REDACTED))).toBeUndefined()
      // The facts stay: the window pairs the same calls and results.
      const { speaker, toolUses, toolResults, plainUser } = format.facts(pruned)
      expect({ speaker, toolUses, toolResults, plainUser }).toMatchObject({
        speaker: format.facts(entry(e)).speaker,
        toolUses: format.facts(entry(e)).toolUses,
        toolResults: format.facts(entry(e)).toolResults,
      })
      // Pruning a pruned entry changes nothing, and it passes as a body the ledger holds.
      expect(format.prune(pruned, REDACTED)).toStrictEqual(pruned)
      expect(stored(pruned)).toStrictEqual(pruned)
    }
    const call = fixture('format-tool-call')[12] as Entry
    expect(format.prune(entry(call), REDACTED).message).toStrictEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'tool_use',
      usage: (call.message as { usage: unknown }).usage,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__calc__add', input: {} }],
    })
  })

  it("accepts the ledger's notes only in the forms it writes them", () => {
    const summary = format.summary(['first', 'second'])
    expect(summary).toStrictEqual({
      type: 'user',
      message: { role: 'user', content: 'first\n\nsecond' },
      contextLedger: { summary: true },
    })
    expect(stored(summary)).toStrictEqual(summary)
    expect(format.notesOf(summary)).toStrictEqual({ summary: true })
    // A caller's entry with the notes is refused by the ordinary snapshot, a forged one by both.
    expect(refusalOf(snap, summary).path).toBe('contextLedger')
    const e = new EntryMaker().prompt('secret')
    const forged = { ...e, contextLedger: { pruned: true } }
    expect(refusalOf((m) => stored(m), forged).path).toBe('contextLedger')
    expect(refusalOf((m) => stored(m), { ...summary, uuid: 'u1' }).path).toBe('contextLedger')
  })

  it('shows a late result as text naming the call, and one never made as such', () => {
    const m = new EntryMaker()
    const r = m.result('c9', 'late output')
    const late = format.lateForm(entry(r), [{ id: 'c9', name: 'lookup' }])
    expect((late.message as { content: unknown[] }).content).toStrictEqual([
      {
        type: 'text',
        text: '[Late tool result] The call "c9" to lookup returned after the conversation had moved on (status success):\nlate output',
      },
    ])
    const unknown = format.lateForm(entry(r), [{ id: 'c9', name: '' }])
    expect(JSON.stringify(unknown)).toContain('which this session never made')
    expect(format.facts(late).toolResults).toStrictEqual([])
    expect(late.uuid).toBe(r.uuid)
  })

  it('cuts a long tool output in the window form only', () => {
    const m = new EntryMaker()
    const long = 'x'.repeat(5000)
    const cut = format.truncate(entry(m.result('c1', long)))
    expect(JSON.stringify(cut?.message)).toContain('<truncated chars=')
    expect(format.truncate(entry(m.result('c2', 'short')))).toBeUndefined()
    expect(format.truncate(entry(m.text(long)))).toBeUndefined()
  })

  it('displays each recorded entry readably', () => {
    const shown = fixture('format-tool-call').map((e) => format.display(entry(e)))
    expect(shown[2]?.content).toStrictEqual([{ text: 'What is 40 + 2? Use the add tool.' }])
    expect(shown[12]?.content).toStrictEqual([
      { toolUse: { toolUseId: 'toolu_1', name: 'mcp__calc__add', input: { a: 40, b: 2 } } },
    ])
    expect(shown[13]?.content).toStrictEqual([
      { toolResult: { toolUseId: 'toolu_1', status: 'success', content: [{ text: '42' }] } },
    ])
    expect(shown[0]?.content).toStrictEqual([{ text: '[queue-operation]' }])
    expect(shown[3]?.content[0]).toStrictEqual({ text: '[attachment environment]' })
  })

  it('keeps the facts and the shape of any entry it redacts (property)', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string() }),
      fc.record({ type: fc.constant('thinking'), thinking: fc.string(), signature: fc.string() }),
      fc.record({
        type: fc.constant('tool_use'),
        id: fc.string({ minLength: 1 }),
        name: fc.string(),
        // The ledger refuses a "__proto__" key anywhere (src/messages/json-snapshot.ts).
        input: fc
          .dictionary(fc.string(), fc.jsonValue())
          .filter((v) => !JSON.stringify(v).includes('"__proto__"')),
      }),
      fc.record({
        type: fc.constant('tool_result'),
        tool_use_id: fc.string({ minLength: 1 }),
        content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }))),
        is_error: fc.boolean(),
      }),
      fc.record({ type: fc.constant('image'), source: fc.record({ data: fc.string() }) }),
    )
    const turn = fc.record({
      type: fc.constantFrom('user', 'assistant'),
      uuid: fc.uuid(),
      extra: fc.string(),
      message: fc.record({
        role: fc.constantFrom('user', 'assistant'),
        content: fc.oneof(fc.string(), fc.array(block)),
      }),
    })
    fc.assert(
      fc.property(turn, (e) => {
        const valid = snap(e)
        const pruned = format.prune(valid, REDACTED)
        const facts = format.facts(valid)
        expect(format.facts(pruned).toolUses.map((u) => u.id)).toStrictEqual(facts.toolUses.map((u) => u.id))
        expect(format.facts(pruned).toolResults).toStrictEqual(facts.toolResults)
        expect(
          format
            .text(pruned)
            .split('\n')
            .every((l) => l === REDACTED || l.endsWith(' {}') || l === ''),
        ).toBe(true)
        expect(pruned.extra).toBeUndefined()
        expect(stored(pruned)).toStrictEqual(pruned)
        expect(format.prune(pruned, REDACTED)).toStrictEqual(pruned)
      }),
      { numRuns: fcRuns(200) },
    )
  })
})
