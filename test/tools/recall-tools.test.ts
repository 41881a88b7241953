/**
 * `search_history` and `read_history`, framework-neutral, on either backend (a conformance-suite file):
 * what the model reads, the token cap and its marker, tool pairs never split, a folded message naming its
 * summary, and every bad input answered with an error result (never a throw). On SQLite the handlers
 * answer at once, on PostgreSQL with a Promise: the tests await both. The same texts on both backends,
 * but where PostgreSQL's snippets differ (whole short texts; see docs/postgres.md).
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import {
  handleReadHistory,
  handleSearchHistory,
  readHistoryToolDefinition,
  searchHistoryToolDefinition,
  type MessageData,
  type RecallToolOptions,
  type RecallToolResult,
  READ_HISTORY_MAX_TOKENS_LIMIT,
} from '../../src/index.js'
import { BACKEND, coreManagerOf, makeBackend, type LedgerManager } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

/** `search_history` on the suite's manager, awaited. */
const search = async (
  m: LedgerManager,
  input: unknown,
  options?: RecallToolOptions,
): Promise<RecallToolResult> => handleSearchHistory(coreManagerOf(m), input, options)

/** `read_history` on the suite's manager, awaited. */
const read = async (
  m: LedgerManager,
  input: unknown,
  options?: RecallToolOptions,
): Promise<RecallToolResult> => handleReadHistory(coreManagerOf(m), input, options)

async function conversation(): Promise<LedgerManager> {
  const store = await backend.open()
  const m = backend.manager(store, { sessionId: 's', windowSize: 4 })
  await m.append([user('The budget for Q3 is 40k EUR.'), assistant('Noted the budget.')])
  await m.append([
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
    await m.append([user(`filler ${i}`), assistant(`ok ${i}`)])
    await m.applyWindow()
  }
  return m
}

describe('search_history', () => {
  it('lists ranked hits with seq, role, place and snippet', async () => {
    const m = await conversation()
    const r = await search(m, { query: 'budget figure?' })
    expect(r.status).toBe('success')
    const lines = r.text.split('\n')
    expect(lines[0]).toMatch(/^2 results for "budget figure\?", best first/)
    expect(lines.slice(1)).toStrictEqual([
      '- seq 1 (assistant, no longer in your context): Noted the **budget**.',
      '- seq 0 (user, no longer in your context): The **budget** for Q3 is 40k EUR.',
    ])
    expect(r.hits?.map((h) => h.seq)).toStrictEqual([1, 0])
    expect((await search(m, { query: 'budget', limit: 1 })).hits).toHaveLength(1)
    expect((await search(m, { query: 'zeppelin' })).text).toBe(
      'No message of this conversation matches "zeppelin".',
    )
  })

  it('lists what left the window before what the model still sees, each part best first', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4 })
    await m.append([
      user('Remember this: the code word is zebrafinch, and the vault word is lark.'),
      assistant('ok'),
    ])
    for (let i = 0; i < 4; i++) await m.append([user(`filler ${i}`), assistant(`ok ${i}`)])
    await m.applyWindow()
    // In the window: the model's own question, which ranks above the old answer (short, every word).
    await m.append([user('What was the code word?'), assistant('Let me look up the code word.')])
    const r = await search(m, { query: 'what was the code word?' })
    expect(r.hits?.map((h) => [h.seq, h.inWindow])).toStrictEqual([
      [0, false],
      [10, true],
      [11, true],
    ])
    expect(r.text.split('\n')[1]).toMatch(
      /^- seq 0 \(user, no longer in your context\): .*\*\*code\*\* \*\*word\*\*/,
    )
    // Within each part the order is the ranking's: the same hits as a search of that part alone.
    const inside = await coreManagerOf(m).search('what was the code word?', { match: 'any', inWindow: true })
    expect(r.hits?.slice(1).map((h) => h.seq)).toStrictEqual(inside.map((h) => h.seq))
    // A limit keeps the first part first: what the model cannot see.
    expect((await search(m, { query: 'code word', limit: 1 })).hits?.map((h) => h.seq)).toStrictEqual([0])
    expect((await search(m, { query: 'code word', limit: 2 })).hits?.map((h) => h.inWindow)).toStrictEqual([
      false,
      true,
    ])
  })

  it('refuses options that are not an object or out of range with INVALID_OPTIONS naming them', async () => {
    const m = await conversation()
    for (const handler of [search, read])
      for (const [options, path] of [
        [null, 'options'],
        ['x', 'options'],
        [[], 'options'],
        [{ maxTokens: Number.NaN }, 'options.maxTokens'],
        [{ maxTokens: -1 }, 'options.maxTokens'],
        [{ maxTokens: 0 }, 'options.maxTokens'],
        [{ maxTokens: 1.5 }, 'options.maxTokens'],
        [{ maxTokens: Infinity }, 'options.maxTokens'],
        [{ maxTokens: READ_HISTORY_MAX_TOKENS_LIMIT + 1 }, 'options.maxTokens'],
        [{ maxTokens: '4000' }, 'options.maxTokens'],
        [{ defaultLimit: 0 }, 'options.defaultLimit'],
        [{ defaultLimit: 51 }, 'options.defaultLimit'],
        [{ maxToken: 10 }, 'options.maxToken'],
      ] as const)
        await expect(
          handler(m, { query: 'budget', fromSeq: 0, toSeq: 1 }, options as never),
          JSON.stringify(options),
        ).rejects.toMatchObject({ code: 'INVALID_OPTIONS', path })
    // The bounds themselves are accepted.
    expect((await read(m, { fromSeq: 0, toSeq: 1 }, { maxTokens: 1 })).status).toBe('success')
    expect(
      (await read(m, { fromSeq: 0, toSeq: 1 }, { maxTokens: READ_HISTORY_MAX_TOKENS_LIMIT })).status,
    ).toBe('success')
    expect((await search(m, { query: 'budget' }, { defaultLimit: 50 })).status).toBe('success')
  })

  it('leaves out summaries that left the window (a dropped one was taken back)', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 6 })
    for (let i = 0; i < 12; i++) await m.append((i % 2 ? assistant : user)(`turn ${i}`))
    const r = await m.summarize(() => 'SUMMARY platypusword', { preserveRecentMessages: 2 })
    expect((await search(m, { query: 'platypusword' })).hits).toHaveLength(1)
    await m.dropSummary(r.summary?.id ?? -1)
    const after = await search(m, { query: 'platypusword' })
    expect(after.hits).toStrictEqual([])
    expect(after.text).toMatch(/^No message of this conversation matches/)
  })

  it('leaves copies in its own stored results after a redaction: found with excludeTools: [] (documented)', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4 })
    await m.append(user('my card number is 4111 Kzzsecretmaria'))
    for (let i = 0; i < 10; i++) await m.append((i % 2 ? user : assistant)('filler'))
    await m.applyWindow()
    const r = await search(m, { query: 'card number' })
    await m.append([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'a', name: 'search_history', input: { query: 'card number' } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'a', status: 'success', content: [{ text: r.text }] } }],
      },
    ])
    await store.redactMessage('s', { seq: 0 })
    // The default search hides the tool's own results; the copy is still there, and can be redacted.
    expect(await store.search('Kzzsecretmaria')).toStrictEqual([])
    const copies = (await store.search('Kzzsecretmaria', { excludeTools: [] })).map((h) => h.seq)
    expect(copies).toStrictEqual([12])
    await store.redactMessage('s', { seq: 12 })
    expect(await store.search('Kzzsecretmaria', { excludeTools: [] })).toStrictEqual([])
  })

  it('answers bad input with an error result the model can read', async () => {
    const m = await conversation()
    for (const input of [
      {},
      { query: '' },
      { query: 'x', limit: -1 },
      { query: 'x', limit: 0 },
      { query: 3 },
      null,
      'budget',
    ])
      expect(await search(m, input), JSON.stringify(input)).toMatchObject({
        status: 'error',
        text: expect.stringMatching(/^Invalid search_history input/) as string,
      })
    expect((await search(m, { query: 'x'.repeat(5000) })).status).toBe('error')
    // A query beyond the bound on a search's work: an error naming the bound, and what to do instead.
    const wide = `"${Array.from({ length: 65 }, (_, i) => `w${i}`).join(' ')}"`
    expect(await search(m, { query: wide })).toMatchObject({
      status: 'error',
      text: expect.stringMatching(
        /65 words; at most 64 .*MAX_QUERY_TERMS.*Use a few plain keywords/,
      ) as string,
    })
    // Hostile query text is searched literally: never an error, never a throw.
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (query) => {
        const r = await search(m, { query: query === '' ? '"' : query })
        expect(r.status).toBe('success')
      }),
      { numRuns: BACKEND === 'sqlite' ? 200 : 60 },
    )
  })
})

describe('read_history', () => {
  it('shows role labels, text, tool names with inputs and results, and where each message is', async () => {
    const m = await conversation()
    const r = await read(m, { fromSeq: 3, toSeq: 3 })
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
    expect((await read(m, { fromSeq: 4, toSeq: 5 })).shown).toStrictEqual({ fromSeq: 3, toSeq: 5 })
    const last = (await m.store.session('s'))?.messageCount ?? 0
    expect((await read(m, { fromSeq: last - 1, toSeq: last + 100 })).text).toMatch(
      /^\[seq \d+\] assistant:\nok 7$/,
    )
  })

  it('stops at the token cap with a marker, never inside a tool pair', async () => {
    const m = await conversation()
    const r = await read(m, { fromSeq: 0, toSeq: 20 }, { maxTokens: 60 })
    expect(r.status).toBe('success')
    const shown = r.shown?.toSeq ?? -1
    expect(shown).toBeLessThan(20)
    expect(r.text).toContain(`Call read_history with fromSeq ${shown + 1}`)
    // The last message shown is never a call whose result was left out.
    expect(r.text).not.toMatch(/\[calls tool [^\]]*\]\n*\[… stopped/)
    for (let cap = 10; cap < 200; cap += 7) {
      const part = await read(m, { fromSeq: 0, toSeq: 20 }, { maxTokens: cap })
      expect(part.shown?.toSeq, `cap ${cap}`).not.toBe(3)
    }
    // One message over the cap alone is cut, and says so.
    await m.append(user('long '.repeat(4000)))
    const seq = ((await m.store.session('s'))?.messageCount ?? 1) - 1
    const long = await read(m, { fromSeq: seq, toSeq: seq }, { maxTokens: 100 })
    expect(long.text).toMatch(/\[… cut: this message is longer than one read allows/)
    expect(long.text.length).toBeLessThan(2000)
  })

  it('shows the result a model asked for when its call is too long, and names only seqs it shows', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 100 })
    for (let i = 0; i < 21; i++) await m.append((i % 2 === 0 ? user : assistant)(`filler ${i}`))
    await m.append([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'w', name: 'write_file', input: { body: 'z'.repeat(40_000) } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'w', status: 'success', content: [{ text: 'written OKAY' }] } }],
      },
    ])
    const r = await read(m, { fromSeq: 22, toSeq: 22 })
    expect(r.shown).toStrictEqual({ fromSeq: 21, toSeq: 22 })
    expect(r.text).toContain('[seq 21] assistant')
    expect(r.text).toContain('[seq 22] user')
    expect(r.text).toContain('[result of write_file (success)] written OKAY')
    expect(r.text).toMatch(/\[… \d+ characters left out\]/)
    expect(r.text.length).toBeLessThan(20_000)
    // Whatever the cap, every seq `shown` names has its header in the text, and the asked seq is there.
    for (const cap of [1, 10, 50, 100, 400, 4000]) {
      const part = await read(m, { fromSeq: 20, toSeq: 22 }, { maxTokens: cap })
      const to = part.shown?.toSeq ?? -1
      for (let seq = part.shown?.fromSeq ?? 0; seq <= to; seq++)
        expect(part.text, `cap ${cap}`).toContain(`[seq ${seq}]`)
      expect(part.text).not.toContain(`[seq ${to + 1}]`)
    }
  })

  it('renders documents, guarded text and citations (the text search finds)', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 2 })
    await m.append([
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
    const r = await read(m, { fromSeq: 0, toSeq: 3 })
    for (const word of ['quokkaword', 'wombatword', 'numbatword', 'dingoword']) {
      expect(r.text).toContain(word)
      expect((await search(m, { query: word })).hits?.length, word).toBe(1)
    }
    expect(r.text).toContain('[document contract] the penalty is quokkaword')
    expect(r.text).toContain('[result of fetch (success)] [document page] dingoword inside')
    expect(r.text).not.toContain('[non-text content]')
  })

  it('names the summary a folded message went into', async () => {
    const m = await conversation()
    const before = (await m.window()).length
    await m.summarize(() => 'Earlier: fillers.', { summaryRatio: 0.5, preserveRecentMessages: 1 })
    expect((await m.window()).length).toBeLessThan(before + 1)
    const id = (await m.summaries())[0]?.id
    const folded = []
    for (const e of await m.history({ limit: 100 }))
      if (!e.inWindow && (await m.store.evictionOf('s', e.seq))?.cut === 'fold') folded.push(e)
    expect(folded.length).toBeGreaterThan(0)
    const seq = folded[0]?.seq ?? 0
    expect((await read(m, { fromSeq: seq, toSeq: seq })).text).toContain(
      `(no longer in your context; summarized in summary #${id})`,
    )
    const text = folded[0]?.message.content[0]
    const words = text !== undefined && 'text' in text ? text.text : ''
    expect((await search(m, { query: `"${words}"` })).text).toContain(`summarized in summary #${id}`)
  })

  it('answers an inverted range, an unknown seq, negative or malformed input with an error result', async () => {
    const m = await conversation()
    const count = (await m.store.session('s'))?.messageCount ?? 0
    expect(await read(m, { fromSeq: 5, toSeq: 2 })).toStrictEqual({
      status: 'error',
      text: 'Invalid range: toSeq 2 is before fromSeq 5. Give fromSeq <= toSeq.',
    })
    expect(await read(m, { fromSeq: count, toSeq: count + 3 })).toStrictEqual({
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
      expect((await read(m, input)).status, JSON.stringify(input)).toBe('error')
    const empty = backend.manager(m.store, { sessionId: 'empty' })
    expect((await read(empty, { fromSeq: 0, toSeq: 0 })).text).toBe('This conversation has no messages yet.')
    expect(readHistoryToolDefinition.handler).toBe(handleReadHistory)
    expect(searchHistoryToolDefinition.name).toBe('search_history')
  })
})
