/**
 * `store.search()` on either backend (a conformance-suite file): what it finds (evicted messages, the
 * window, summaries), its filters and paging, summaries that left the window, the recall tools' own
 * calls, plain input taken literally, raw-syntax errors as `INVALID_QUERY`, and that no string crashes
 * it or changes the ledger. Raw syntax is each backend's own (FTS5 on SQLite, `to_tsquery` on
 * PostgreSQL); the rest is the same test. What depends on SQLite's index itself (its watermark and
 * pending rows, bm25 scores against the index's, its file) stays in search.test.ts.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import {
  ContextLedgerError,
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  MIN_PREFIX_LENGTH,
  MAX_SEARCH_LIMIT,
  type MessageData,
} from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

/** Raw query syntax: FTS5's on SQLite, to_tsquery's on PostgreSQL. */
const RAW = (BACKEND === 'sqlite' ? 'fts5' : 'tsquery') as 'tsquery'

describe(`store.search [${BACKEND}]`, () => {
  it('finds evicted messages and summaries, ranked, with snippets and where each one is', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 'ops', windowSize: 4 })
    await m.append([user('What is the replication lag on eu-west?'), assistant('Replication lag is 40 ms.')])
    for (let i = 0; i < 6; i++) {
      await m.append([user(`unrelated question ${i}`), assistant(`unrelated answer ${i}`)])
      await m.applyWindow()
    }
    await m.summarize(() => 'Earlier: the team discussed quorum reads.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    const hits = await store.search('replication lag')
    expect(hits.map((h) => [h.kind, h.seq, h.role, h.inWindow])).toStrictEqual([
      ['message', 1, 'assistant', false],
      ['message', 0, 'user', false],
    ])
    expect(hits[0]?.score).toBeLessThan(hits[1]?.score ?? 0)
    expect(hits[0]?.snippet).toBe('**Replication** **lag** is 40 ms.')
    expect(hits[0]?.sessionId).toBe('ops')
    expect(hits[0]?.createdAt).toBeInstanceOf(Date)
    const summaries = await m.summaries()
    const summary = await store.search('quorum')
    expect(summary).toHaveLength(1)
    expect(summary[0]).toMatchObject({ kind: 'summary', role: 'user', inWindow: true, pinned: false })
    expect(summary[0]?.summaryId).toBe(summaries[0]?.id)
    expect(await store.search('quorum', { summaries: false })).toStrictEqual([])
    const folded = await store.search('"unrelated question 4"', { inWindow: false })
    expect(folded.map((h) => h.seq)).toStrictEqual([10])
    // A message the fold took names the summary it went into (read from the eviction log).
    expect(folded[0]?.summaryId).toBe(summaries[0]?.id)
    expect((await m.search('"unrelated question 4"', { inWindow: false }))[0]?.summaryId).toBe(
      summaries[0]?.id,
    )
  })

  it('takes any time filter, and refuses options that are not an object', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4 })
    await m.append([user('alpha beta'), assistant('gamma')])
    expect((await store.search('alpha', { since: 1e20 })).length).toBe(0)
    expect((await store.search('alpha', { until: 1e20 })).map((h) => h.seq)).toStrictEqual([0])
    expect((await store.search('alpha', { since: -1e20 })).map((h) => h.seq)).toStrictEqual([0])
    for (const bad of [[], null, 'x'])
      await expect(m.search('alpha', bad as never)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' })
  })

  it('combines every filter with the text match, and pages with limit and offset', async () => {
    const store = await backend.open()
    const a = backend.manager(store, { sessionId: 'a', windowSize: 3 })
    const b = backend.manager(store, { sessionId: 'b', windowSize: 100 })
    await a.append([user('deploy the canary'), assistant('canary deployed')])
    await a.append({
      role: 'assistant',
      content: [{ toolUse: { toolUseId: 't1', name: 'kubectl', input: { args: 'rollout canary' } } }],
    })
    await a.append({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 't1', status: 'success', content: [{ text: 'canary rolled out' }] } },
      ],
    })
    await a.append([assistant('canary is healthy'), user('thanks for the canary')])
    await a.pin({ seq: 0 }, { reason: 'task' })
    await a.applyWindow()
    // Apart by a few ms, so `since` splits the two sessions' appends (times are in ms).
    await new Promise((r) => setTimeout(r, 5))
    const start = Date.now()
    await new Promise((r) => setTimeout(r, 5))
    await b.append([user('canary in session b'), assistant('ok')])
    const seqs = async (opts: Parameters<LedgerStore['search']>[1]): Promise<[string, number][]> =>
      (await store.search('canary', opts)).map((h) => [h.sessionId, h.seq])
    const sorted = async (opts: Parameters<LedgerStore['search']>[1]): Promise<number[]> =>
      (await seqs(opts)).map(([, s]) => s).sort()
    expect(await seqs({ sessionId: 'b' })).toStrictEqual([['b', 0]])
    expect(await sorted({ sessionId: 'a', role: 'user' })).toStrictEqual([0, 3, 5])
    expect(await seqs({ sessionId: 'a', pinned: true })).toStrictEqual([['a', 0]])
    expect(await sorted({ toolName: 'kubectl' })).toStrictEqual([2, 3])
    const evicted = await store.search('canary', { sessionId: 'a', inWindow: false })
    expect(evicted.length).toBeGreaterThan(0)
    for (const h of evicted) expect(h.inWindow).toBe(false)
    for (const h of await store.search('canary', { inWindow: true })) expect(h.inWindow).toBe(true)
    expect(await seqs({ since: start })).toStrictEqual([['b', 0]])
    expect(await seqs({ until: start, sessionId: 'b' })).toStrictEqual([])
    expect(await seqs({ sessionId: 'nobody' })).toStrictEqual([])
    // Paging: the pages of a query put together are the query.
    const all = await seqs({ limit: 100 })
    const paged: [string, number][] = []
    for (const offset of [0, 2, 4, 6]) paged.push(...(await seqs({ limit: 2, offset })))
    expect(paged).toStrictEqual(all)
  })

  it('marks summaries that left the window with why, and leaves them out when asked', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 6 })
    for (let i = 0; i < 12; i++) await m.append((i % 2 ? assistant : user)(`turn ${i}`))
    const first = await m.summarize(() => 'SUMMARY platypusword', { preserveRecentMessages: 2 })
    const id = first.summary?.id ?? -1
    const found = async (q: string): Promise<unknown[]> =>
      (await store.search(q)).map((h) => [h.kind, h.summaryId, h.ended])
    expect(await found('platypusword')).toStrictEqual([['summary', id, undefined]])
    await m.dropSummary(id)
    expect(await found('platypusword')).toStrictEqual([['summary', id, 'dropped']])
    expect(await store.search('platypusword', { endedSummaries: false })).toStrictEqual([])
    const second = await m.summarize(() => 'SUMMARY2 wombatword', { preserveRecentMessages: 2 })
    const regen = await m.resummarize(second.summary?.id ?? -1, () => 'REGEN wombatword koalaword')
    const hits = (await store.search('wombatword')).map((h) => [h.summaryId, h.ended])
    expect(hits).toHaveLength(2)
    expect(hits).toContainEqual([second.summary?.id, 'regenerated'])
    expect(hits).toContainEqual([regen.id, undefined])
    expect(
      (await store.search('wombatword', { endedSummaries: false })).map((h) => h.summaryId),
    ).toStrictEqual([regen.id])
    await expect(store.search('x', { endedSummaries: 'no' as unknown as boolean })).rejects.toThrow(
      /endedSummaries/,
    )
  })

  it('keeps the text around a NUL in its snippet', async () => {
    const store = await backend.open()
    await store.append('s', user('x\u0000y nulword'))
    expect((await store.search('nulword')).map((h) => h.snippet)).toStrictEqual(['x y **nulword**'])
  })

  it('leaves the recall tools own calls and results out unless asked', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's' })
    await m.append([
      user('what was the budget?'),
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'r1', name: 'search_history', input: { query: 'budget' } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'r1', status: 'success', content: [{ text: 'seq 0: budget' }] } },
        ],
      },
    ])
    expect((await store.search('budget')).map((h) => h.seq)).toStrictEqual([0])
    expect((await store.search('budget', { excludeTools: [] })).map((h) => h.seq).sort()).toStrictEqual([
      0, 1, 2,
    ])
  })

  it('escapes plain input: operators, quotes and column filters are words; phrases are kept', async () => {
    const store = await backend.open()
    await store.append('s', [
      user('NEAR the col: x value - AND more'),
      assistant('replication lag'),
      user('lag of the replication'),
    ])
    const seqs = async (q: string, opts?: Parameters<LedgerStore['search']>[1]): Promise<number[]> =>
      (await store.search(q, opts)).map((h) => h.seq)
    expect(await seqs('"replication lag"')).toStrictEqual([1])
    expect((await seqs('replication lag')).sort()).toStrictEqual([1, 2])
    expect(await seqs('NEAR(')).toStrictEqual([0])
    // `col:x` is the phrase "col x" (the tokenizer drops the colon), not a column filter.
    expect(await seqs('col:x')).toStrictEqual([0])
    // `AND` is a word — but an English stop word, which PostgreSQL's `english` configuration does not index.
    expect(await seqs('AND')).toStrictEqual(BACKEND === 'sqlite' ? [0] : [])
    for (const q of ['"', '-', '*', '', '   ', '"""', '\u0000', '()'])
      expect(await store.search(q), JSON.stringify(q)).toStrictEqual([])
    // Raw syntax is opt-in: prefixes, negation, adjacency.
    const raw = (fts5: string, tsquery: string): Promise<number[]> =>
      seqs(BACKEND === 'sqlite' ? fts5 : tsquery, { syntax: RAW })
    expect(await raw('repl*', 'repl:*')).toHaveLength(2)
    expect(await raw('replication NOT lag', 'replication & !lag')).toStrictEqual([])
    expect(await raw('NEAR(replication lag, 0)', 'replication <-> lag')).toStrictEqual([1])
    expect(await seqs('lag OR nothing', { match: 'any' })).toHaveLength(2)
  })

  it('turns raw syntax errors into INVALID_QUERY, leaves the ledger as it was', async () => {
    const store = await backend.open()
    await store.append('s', [user('alpha'), assistant('beta')])
    const before = await backend.checksum(store)
    const bad =
      BACKEND === 'sqlite'
        ? ['"', 'NEAR(', '-', '*', 'col:x', 'a AND', 'a\u0000b', '(((', 'NOT']
        : ['a & (', '!', 'x <->', '(((', '&', 'a |', 'a\u0000b', 'a b', ')']
    for (const q of bad)
      await expect(store.search(q, { syntax: RAW }), q).rejects.toThrow(
        expect.objectContaining({ code: 'INVALID_QUERY' }) as Error,
      )
    await expect(store.search('x'.repeat(MAX_QUERY_LENGTH + 1))).rejects.toThrow(/at most 4096/)
    await expect(store.search('a '.repeat(65))).rejects.toThrow(/at most 64/)
    await expect(store.search(42 as unknown as string)).rejects.toThrow(ContextLedgerError)
    await expect(store.search('a', { limit: -1 })).rejects.toThrow(/options.limit/)
    await expect(store.search('a', { bogus: 1 } as never)).rejects.toThrow(/options.bogus/)
    // Each backend refuses the other's raw syntax by name.
    const other = (BACKEND === 'sqlite' ? 'tsquery' : 'fts5') as 'tsquery'
    await expect(store.search('a', { syntax: other })).rejects.toThrow(
      BACKEND === 'sqlite'
        ? /options.syntax: 'tsquery' is the PostgreSQL store's/
        : /options.syntax: FTS5 syntax is SQLite's/,
    )
    expect(await backend.checksum(store)).toBe(before)
  })

  it('bounds a wide search: 64 words and 1,000 hits at most, a repeated word looked up once', async () => {
    const store = await backend.open()
    await store.append('s', [user('alpha beta gamma'), assistant('beta delta'), user('alpha alpha epsilon')])
    const wide = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `w${i}`).join(' ')
    expect(
      await store.search(`${wide.split(' ').slice(1).join(' ')} alpha`, { match: 'any', limit: 1000 }),
    ).toHaveLength(2)
    await expect(store.search(`${wide} alpha`, { match: 'any' })).rejects.toMatchObject({
      code: 'INVALID_QUERY',
      message: expect.stringMatching(/at most 64/) as string,
    })
    await expect(store.search('alpha', { limit: MAX_SEARCH_LIMIT + 1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'options.limit',
    })
    // The same word said again (in any case) neither changes the hits nor weighs twice in their scores.
    const once = await store.search('alpha beta', { match: 'any' })
    expect(await store.search('alpha ALPHA beta alpha', { match: 'any' })).toStrictEqual(once)
  })

  it('bounds the words of a query, whatever its syntax: in phrases, joined tokens and raw terms', async () => {
    const store = await backend.open()
    expect([MAX_QUERY_TERMS, MIN_PREFIX_LENGTH]).toStrictEqual([64, 3])
    const ws = (n: number): string[] => Array.from({ length: n }, (_, i) => `w${i}`)
    await store.append('s', [user(ws(64).join(' ')), user('alpha beta')])
    const before = await backend.checksum(store)
    const refused = async (query: string, options: { syntax?: 'tsquery' }, bound: RegExp): Promise<void> => {
      await expect(store.search(query, options), query.slice(0, 40)).rejects.toMatchObject({
        code: 'INVALID_QUERY',
        path: 'query',
        message: expect.stringMatching(bound) as string,
      })
    }
    const terms = /65 words; at most 64 .*MAX_QUERY_TERMS/
    // Plain input: every word of a phrase counts, and so does every word of a hyphenated token.
    await refused(`"${ws(65).join(' ')}"`, {}, terms)
    await refused(ws(65).join('-'), {}, terms)
    await refused(`"${ws(40).join(' ')}" ${ws(65).slice(40).join('_')}`, {}, terms)
    // Raw syntax: its terms, operators aside (and words inside a raw phrase).
    await refused(ws(65).join(BACKEND === 'sqlite' ? ' OR ' : ' | '), { syntax: RAW }, terms)
    await refused(
      BACKEND === 'sqlite' ? `"${ws(65).join(' ')}"` : `'${ws(65).join(' ')}'`,
      { syntax: RAW },
      terms,
    )
    // A prefix of fewer than 3 characters would expand to a large part of the vocabulary.
    const prefix = /prefix "k" is 1 character.*at least 3.*MIN_PREFIX_LENGTH/
    await refused(BACKEND === 'sqlite' ? 'k*' : 'k:*', { syntax: RAW }, prefix)
    await refused(BACKEND === 'sqlite' ? 'alpha OR "beta k" *' : 'alpha | k:*', { syntax: RAW }, /at least 3/)
    // At the bounds: 64 words in one phrase, 64 raw terms, a 3-character prefix.
    expect(await store.search(`"${ws(64).join(' ')}"`)).toHaveLength(1)
    // (accepted; PostgreSQL's parser also keeps a hyphenated compound whole, so it need not match there)
    await expect(store.search(ws(64).join('-'))).resolves.toBeInstanceOf(Array)
    const or = BACKEND === 'sqlite' ? ws(64).join(' OR ') : ws(64).join(' | ')
    expect(await store.search(or, { syntax: RAW })).toHaveLength(1)
    expect(await store.search(BACKEND === 'sqlite' ? 'alp*' : 'alp:*', { syntax: RAW })).toHaveLength(1)
    // Operators, column filters and a NEAR distance are not words.
    if (BACKEND === 'sqlite') {
      const near = `text:NEAR(${ws(62).join(' ')} alpha, 100000) OR NOT`
      await expect(store.search(near.replace(/ OR NOT$/, ''), { syntax: RAW })).resolves.toBeDefined()
    } else {
      await expect(store.search(`(${ws(63).join(' <-> ')}) & !alpha`, { syntax: RAW })).resolves.toBeDefined()
    }
    expect(await backend.checksum(store)).toBe(before)
  })

  it('never crashes on any string, plain or raw, and never writes the ledger', async () => {
    const store = await backend.open()
    await store.append('s', [user('alpha beta gamma'), assistant('delta "quoted" NEAR(x) -minus *star*')])
    const before = await backend.checksum(store)
    const parts = [
      '"',
      'NEAR(',
      ')',
      '(',
      '-',
      '*',
      'AND',
      'OR',
      'NOT',
      ':',
      '^',
      'alpha',
      '{',
      '}',
      ',',
      ' ',
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc
            .array(fc.constantFrom(...parts, '&', '|', '!', '<->', '<2>', ':*', "'"), { maxLength: 12 })
            .map((p) => p.join('')),
        ),
        fc.constantFrom('plain' as const, RAW),
        async (q, syntax) => {
          try {
            const hits = await store.search(q, { syntax })
            for (const h of hits) expect(typeof h.snippet).toBe('string')
          } catch (error) {
            expect(syntax).toBe(RAW)
            expect(error).toBeInstanceOf(ContextLedgerError)
            expect((error as ContextLedgerError).code).toBe('INVALID_QUERY')
          }
        },
      ),
      { numRuns: 400 },
    )
    expect(await backend.checksum(store)).toBe(before)
  })

  it('answers a 10 MB query with INVALID_QUERY at once', async () => {
    const store = await backend.open()
    await store.append('s', user('alpha'))
    const started = performance.now()
    await expect(store.search('alpha '.repeat(2_000_000))).rejects.toThrow(
      expect.objectContaining({ code: 'INVALID_QUERY' }) as Error,
    )
    // Not a timing limit on the search: the refusal must not tokenize 10 MB (it is a length check).
    expect(performance.now() - started).toBeLessThan(5_000)
  })
})
