/**
 * `search_history` and `read_history`, framework-neutral, against real files: what the model reads, the
 * token cap and its marker, tool pairs never split, a folded message naming its summary, and every bad
 * input answered with an error result (never a throw). Also the Strands tools on a bare agent.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  handleReadHistory,
  handleSearchHistory,
  PersistentConversationManager,
  READ_PAGE_ROWS,
  readHistoryToolDefinition,
  searchHistoryToolDefinition,
  type MessageData,
} from '../../src/index.js'
import { readHistoryTool, searchHistoryTool } from '../../src/adapters/strands/index.js'
import { countStatements } from '../helpers/statement-counter.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-tools-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

function conversation(): PersistentConversationManager {
  const store = dir.open()
  const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
  m.append([user('The budget for Q3 is 40k EUR.'), assistant('Noted the budget.')])
  m.append([
    user('check the replicas'),
    {
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 'c1', name: 'lag_probe', input: { region: 'eu-west' } } }],
    },
    {
      role: 'user',
      content: [
        {
          toolResult: {
            toolUseId: 'c1',
            status: 'success',
            content: [{ text: 'lag 40 ms' }, { json: { ok: true } }],
          },
        },
      ],
    },
    assistant('Replicas are fine.'),
  ])
  for (let i = 0; i < 8; i++) {
    m.append([user(`filler ${i}`), assistant(`ok ${i}`)])
    m.applyWindow()
  }
  return m
}

describe('search_history', () => {
  it('lists ranked hits with seq, role, place and snippet', () => {
    const m = conversation()
    const r = handleSearchHistory(m, { query: 'budget figure?' })
    expect(r.status).toBe('success')
    const lines = r.text.split('\n')
    expect(lines[0]).toMatch(/^2 results for "budget figure\?", best first/)
    expect(lines.slice(1)).toStrictEqual([
      '- seq 1 (assistant, no longer in your context): Noted the **budget**.',
      '- seq 0 (user, no longer in your context): The **budget** for Q3 is 40k EUR.',
    ])
    expect(r.hits?.map((h) => h.seq)).toStrictEqual([1, 0])
    expect(handleSearchHistory(m, { query: 'budget', limit: 1 }).hits).toHaveLength(1)
    expect(handleSearchHistory(m, { query: 'zeppelin' }).text).toBe(
      'No message of this conversation matches "zeppelin".',
    )
  })

  it('leaves out summaries that left the window (a dropped one was taken back)', async () => {
    const store = dir.open('dropped.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    for (let i = 0; i < 12; i++) m.append((i % 2 ? assistant : user)(`turn ${i}`))
    const r = await m.summarize(() => 'SUMMARY platypusword', { preserveRecentMessages: 2 })
    expect(handleSearchHistory(m, { query: 'platypusword' }).hits).toHaveLength(1)
    m.dropSummary(r.summary?.id ?? -1)
    const after = handleSearchHistory(m, { query: 'platypusword' })
    expect(after.hits).toStrictEqual([])
    expect(after.text).toMatch(/^No message of this conversation matches/)
  })

  it('leaves copies in its own stored results after a redaction: found with excludeTools: [] (documented)', () => {
    const store = dir.open('privacy.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
    m.append(user('my card number is 4111 Kzzsecretmaria'))
    for (let i = 0; i < 10; i++) m.append((i % 2 ? user : assistant)('filler'))
    m.applyWindow()
    const r = handleSearchHistory(m, { query: 'card number' })
    m.append([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'a', name: 'search_history', input: { query: 'card number' } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'a', status: 'success', content: [{ text: r.text }] } }],
      },
    ])
    store.redactMessage('s', { seq: 0 })
    // The default search hides the tool's own results; the copy is still there, and can be redacted.
    expect(store.search('Kzzsecretmaria')).toStrictEqual([])
    const copies = store.search('Kzzsecretmaria', { excludeTools: [] }).map((h) => h.seq)
    expect(copies).toStrictEqual([12])
    store.redactMessage('s', { seq: 12 })
    expect(store.search('Kzzsecretmaria', { excludeTools: [] })).toStrictEqual([])
  })

  it('answers bad input with an error result the model can read', () => {
    const m = conversation()
    for (const input of [
      {},
      { query: '' },
      { query: 'x', limit: -1 },
      { query: 'x', limit: 0 },
      { query: 3 },
      null,
      'budget',
    ])
      expect(handleSearchHistory(m, input), JSON.stringify(input)).toMatchObject({
        status: 'error',
        text: expect.stringMatching(/^Invalid search_history input/) as string,
      })
    expect(handleSearchHistory(m, { query: 'x'.repeat(5000) }).status).toBe('error')
    // Hostile query text is searched literally: never an error, never a throw.
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (query) => {
        const r = handleSearchHistory(m, { query: query === '' ? '"' : query })
        expect(r.status).toBe('success')
      }),
      { numRuns: 200 },
    )
  })
})

describe('read_history', () => {
  it('shows role labels, text, tool names with inputs and results, and where each message is', () => {
    const m = conversation()
    const r = handleReadHistory(m, { fromSeq: 3, toSeq: 3 })
    expect(r.status).toBe('success')
    // Seq 3 is a tool call: its result (seq 4) comes with it.
    expect(r.shown).toStrictEqual({ fromSeq: 3, toSeq: 4 })
    expect(r.text).toBe(
      [
        '[seq 3] assistant (no longer in your context):',
        '[calls tool lag_probe with {"region":"eu-west"}]',
        '',
        '[seq 4] user (no longer in your context):',
        '[result of lag_probe (success)] lag 40 ms\n{"ok":true}',
      ].join('\n'),
    )
    // A range starting at a result reaches back to its call.
    expect(handleReadHistory(m, { fromSeq: 4, toSeq: 5 }).shown).toStrictEqual({ fromSeq: 3, toSeq: 5 })
    const last = m.store.session('s')?.messageCount ?? 0
    expect(handleReadHistory(m, { fromSeq: last - 1, toSeq: last + 100 }).text).toMatch(
      /^\[seq \d+\] assistant:\nok 7$/,
    )
  })

  it('stops at the token cap with a marker, never inside a tool pair', () => {
    const m = conversation()
    const r = handleReadHistory(m, { fromSeq: 0, toSeq: 20 }, { maxTokens: 60 })
    expect(r.status).toBe('success')
    const shown = r.shown?.toSeq ?? -1
    expect(shown).toBeLessThan(20)
    expect(r.text).toContain(`Call read_history with fromSeq ${shown + 1}`)
    // The last message shown is never a call whose result was left out.
    expect(r.text).not.toMatch(/\[calls tool [^\]]*\]\n*\[… stopped/)
    for (let cap = 10; cap < 200; cap += 7) {
      const part = handleReadHistory(m, { fromSeq: 0, toSeq: 20 }, { maxTokens: cap })
      expect(part.shown?.toSeq, `cap ${cap}`).not.toBe(3)
    }
    // One message over the cap alone is cut, and says so.
    m.append(user('long '.repeat(4000)))
    const seq = (m.store.session('s')?.messageCount ?? 1) - 1
    const long = handleReadHistory(m, { fromSeq: seq, toSeq: seq }, { maxTokens: 100 })
    expect(long.text).toMatch(/\[… cut: this message is longer than one read allows/)
    expect(long.text.length).toBeLessThan(2000)
  })

  it('reads a page at a time and stops at the cap: a huge range costs what a small one does', () => {
    const store = dir.open('paged.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
    for (let i = 0; i < 2000; i += 100)
      m.append(Array.from({ length: 100 }, (_, k) => user(`message number ${i + k} of the long session`)))
    const counter = countStatements(store)
    const small = counter.measure(() => handleReadHistory(m, { fromSeq: 0, toSeq: 10 }, { maxTokens: 100 }))
    let r: ReturnType<typeof handleReadHistory> | undefined
    const huge = counter.measure(() => {
      r = handleReadHistory(m, { fromSeq: 0, toSeq: Number.MAX_SAFE_INTEGER }, { maxTokens: 100 })
    })
    expect(r?.shown?.fromSeq).toBe(0)
    expect(r?.text).toContain(`Call read_history with fromSeq ${(r?.shown?.toSeq ?? 0) + 1}`)
    // The whole range was 2000 rows; a read of it costs a page or so, as a small one does.
    expect(huge.rows).toBeLessThanOrEqual(small.rows + 2 * READ_PAGE_ROWS)
    expect(huge.rows).toBeLessThan(100)
  })

  it('shows the result a model asked for when its call is too long, and names only seqs it shows', () => {
    const store = dir.open('longcall.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    for (let i = 0; i < 21; i++) m.append((i % 2 === 0 ? user : assistant)(`filler ${i}`))
    m.append([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'w', name: 'write_file', input: { body: 'z'.repeat(40_000) } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'w', status: 'success', content: [{ text: 'written OKAY' }] } }],
      },
    ])
    const r = handleReadHistory(m, { fromSeq: 22, toSeq: 22 })
    expect(r.shown).toStrictEqual({ fromSeq: 21, toSeq: 22 })
    expect(r.text).toContain('[seq 21] assistant')
    expect(r.text).toContain('[seq 22] user')
    expect(r.text).toContain('[result of write_file (success)] written OKAY')
    expect(r.text).toMatch(/\[… \d+ characters left out\]/)
    expect(r.text.length).toBeLessThan(20_000)
    // Whatever the cap, every seq `shown` names has its header in the text, and the asked seq is there.
    for (const cap of [1, 10, 50, 100, 400, 4000]) {
      const part = handleReadHistory(m, { fromSeq: 20, toSeq: 22 }, { maxTokens: cap })
      const to = part.shown?.toSeq ?? -1
      for (let seq = part.shown?.fromSeq ?? 0; seq <= to; seq++)
        expect(part.text, `cap ${cap}`).toContain(`[seq ${seq}]`)
      expect(part.text).not.toContain(`[seq ${to + 1}]`)
    }
  })

  it('renders documents, guarded text and citations (the text search finds)', () => {
    const store = dir.open('docs.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
    m.append([
      {
        role: 'user',
        content: [
          { text: 'see attached' },
          { document: { name: 'contract', format: 'txt', source: { text: 'the penalty is quokkaword' } } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { guardContent: { text: { text: 'guarded wombatword', qualifiers: ['query'] } } },
          { citations: { citations: [], content: [{ text: 'cited numbatword' }] } },
        ] as MessageData['content'],
      },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'f', name: 'fetch', input: {} } }],
      },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 'f',
              status: 'success',
              content: [{ document: { name: 'page', format: 'txt', source: { text: 'dingoword inside' } } }],
            },
          },
        ],
      },
    ])
    const r = handleReadHistory(m, { fromSeq: 0, toSeq: 3 })
    for (const word of ['quokkaword', 'wombatword', 'numbatword', 'dingoword']) {
      expect(r.text).toContain(word)
      expect(handleSearchHistory(m, { query: word }).hits?.length, word).toBe(1)
    }
    expect(r.text).toContain('[document contract] the penalty is quokkaword')
    expect(r.text).toContain('[result of fetch (success)] [document page] dingoword inside')
    expect(r.text).not.toContain('[non-text content]')
  })

  it('names the summary a folded message went into', async () => {
    const m = conversation()
    const before = m.window().length
    await m.summarize(() => 'Earlier: fillers.', { summaryRatio: 0.5, preserveRecentMessages: 1 })
    expect(m.window().length).toBeLessThan(before + 1)
    const id = m.summaries()[0]?.id
    const folded = m
      .history({ limit: 100 })
      .filter((e) => !e.inWindow && m.store.evictionOf('s', e.seq)?.cut === 'fold')
    expect(folded.length).toBeGreaterThan(0)
    const seq = folded[0]?.seq ?? 0
    expect(handleReadHistory(m, { fromSeq: seq, toSeq: seq }).text).toContain(
      `(no longer in your context; summarized in summary #${id})`,
    )
    const text = folded[0]?.message.content[0]
    const words = text !== undefined && 'text' in text ? text.text : ''
    expect(handleSearchHistory(m, { query: `"${words}"` }).text).toContain(`summarized in summary #${id}`)
  })

  it('answers an inverted range, an unknown seq, negative or malformed input with an error result', () => {
    const m = conversation()
    const count = m.store.session('s')?.messageCount ?? 0
    expect(handleReadHistory(m, { fromSeq: 5, toSeq: 2 })).toStrictEqual({
      status: 'error',
      text: 'Invalid range: toSeq 2 is before fromSeq 5. Give fromSeq <= toSeq.',
    })
    expect(handleReadHistory(m, { fromSeq: count, toSeq: count + 3 })).toStrictEqual({
      status: 'error',
      text: `Unknown seq ${count}: this conversation has seqs 0 to ${count - 1}.`,
    })
    for (const input of [
      { fromSeq: -1, toSeq: 2 },
      { fromSeq: 1.5, toSeq: 2 },
      { fromSeq: 0 },
      {},
      null,
      [1, 2],
    ])
      expect(handleReadHistory(m, input).status, JSON.stringify(input)).toBe('error')
    const empty = new PersistentConversationManager({ store: m.store, sessionId: 'empty' })
    expect(handleReadHistory(empty, { fromSeq: 0, toSeq: 0 }).text).toBe(
      'This conversation has no messages yet.',
    )
    expect(readHistoryToolDefinition.handler).toBe(handleReadHistory)
    expect(searchHistoryToolDefinition.name).toBe('search_history')
  })
})

describe('the Strands recall tools', () => {
  it('answer with an error text on an agent without the ledger manager, and without an agent', async () => {
    const bare = { messages: [] } as unknown as Parameters<typeof searchHistoryTool.invoke>[1] extends infer C
      ? C
      : never
    expect(await searchHistoryTool.invoke({ query: 'x' })).toMatch(/needs the agent/)
    expect(await readHistoryTool.invoke({ fromSeq: 0, toSeq: 0 }, { agent: bare } as never)).toMatch(
      /needs the context-ledger conversation manager/,
    )
    expect(searchHistoryTool.toolSpec.name).toBe('search_history')
    expect(readHistoryTool.toolSpec.inputSchema).toMatchObject({ required: ['fromSeq', 'toSeq'] })
  })
})
