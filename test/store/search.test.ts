/**
 * `store.search()` over SQLite files, where it depends on SQLite's own index: pending rows above the
 * index's watermark, their ranking against the index's own, paging across the two, the eviction log's
 * summary for a folded message. What holds on both backends (what it finds, filters, paging, hostile
 * strings, raw-syntax errors) is in search-conformance.test.ts. The completeness property
 * compares every search with a brute-force scan of the archive, at every state of the watermark.
 */
import type Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PersistentConversationManager, type MessageData } from '../../src/index.js'
import {
  SEARCH_BATCH_CHARS,
  SEARCH_BATCH_ROWS,
  SEARCH_PENDING_MAX_CHARS,
  SEARCH_PENDING_MAX_ROWS,
} from '../../src/store/search-index.js'
import { idleTurn, waiting, watermark } from '../helpers/search-index.js'
import { refusal } from '../helpers/refusal.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-search-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

function fileState(store: { connection(): Database.Database }): string {
  const db = store.connection()
  return JSON.stringify([
    db.prepare('SELECT count(*) AS n FROM messages').get(),
    db.prepare('SELECT indexed_to FROM search_state').get(),
    db.prepare('SELECT count(*) AS n FROM search_index_docsize').get(),
    db.prepare('SELECT count(*) AS n FROM sessions').get(),
  ])
}

describe('store.search', () => {
  // What it finds, its filters, paging, raw-syntax errors and hostile strings: search-conformance.test.ts
  // (both backends). Here: what depends on SQLite's own index and eviction log.
  it('names the summary a fold put a message in, as the eviction log records the cut', async () => {
    const store = dir.open()
    const m = new PersistentConversationManager({ store, sessionId: 'ops', windowSize: 4 })
    m.append([user('What is the replication lag on eu-west?'), assistant('Replication lag is 40 ms.')])
    for (let i = 0; i < 6; i++) {
      m.append([user(`unrelated question ${i}`), assistant(`unrelated answer ${i}`)])
      m.applyWindow()
    }
    await m.summarize(() => 'Earlier: the team discussed quorum reads.', {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    const folded = store.search('"unrelated question 4"', { inWindow: false })
    expect(folded.map((h) => h.seq)).toStrictEqual([10])
    expect(store.evictionOf('ops', 10)).toMatchObject({ cut: 'fold', reason: 'summary' })
    expect(folded[0]?.summaryId).toBe(m.summaries()[0]?.id)
  })

  it('keeps the text around a NUL in its snippet, indexed or pending', () => {
    const store = dir.open('nul.db')
    store.append('s', user('x\u0000y nulword'))
    // Pending (above the watermark), then indexed.
    expect(store.search('nulword').map((h) => h.snippet)).toStrictEqual(['x y **nulword**'])
    expect(store.indexPending()).toBe(true)
    expect(store.search('nulword').map((h) => h.snippet)).toStrictEqual(['x y **nulword**'])
  })

  it("counts a query's words as its index's tokenizer does: marks FTS5 splits on make no long word", () => {
    const store = dir.open('marks.db')
    store.append('s', user('lox lox lox and a cafe\u0301 crème'))
    // U+0903 (a combining mark) separates words in FTS5: 1,000 tokens in what Unicode calls one word.
    for (const [query, syntax] of [
      ['lox\u0903'.repeat(1000), 'plain'],
      [`"${'lox\u0903'.repeat(1000)}"`, 'plain'],
      ['lox\u20dd'.repeat(1000), 'fts5'],
    ] as const) {
      const error = refusal(() => store.search(query, { syntax }))
      expect(error.code).toBe('INVALID_QUERY')
      expect(error.message).toMatch(/the index splits it into 1000 words; at most (64|128) are accepted/)
    }
    // Within the bound, with combining accents (decomposed text), it searches as before.
    const pairs = Array.from({ length: 32 }, () => 'lox\u0903lox').join(' ')
    expect(store.search(pairs).map((h) => h.seq)).toStrictEqual([0])
    expect(refusal(() => store.search(`${pairs} lox`)).code).toBe('INVALID_QUERY')
    expect(store.search('cafe\u0301 lox').map((h) => h.seq)).toStrictEqual([0])
    expect(store.search(Array.from({ length: 64 }, () => 'crème').join(' '))).toHaveLength(1)
  })

  it('never writes the file: not its index, not its watermark, whatever the query', () => {
    const store = dir.open()
    store.append('s', [user('alpha beta gamma'), assistant('delta "quoted" NEAR(x) -minus *star*')])
    const before = fileState(store)
    for (const q of ['alpha', '"alpha beta"', 'NEAR(', '"', 'a AND', '(((', 'NOT', 'delta*'])
      for (const syntax of ['plain', 'fts5'] as const)
        try {
          store.search(q, { syntax })
        } catch {
          // INVALID_QUERY: search-conformance.test.ts checks the errors.
        }
    expect(fileState(store)).toBe(before)
  })

  it('scores pending rows as the index scores them once indexed (plain queries)', async () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta']
    const text = (i: number): string =>
      `${words[i % 4]} ${words[(i * 7) % 4]} ${words[(i * 3 + 1) % 4]} x${i} ${i % 3 === 0 ? 'alpha bravo' : ''}`
    for (const [k, q] of ['alpha', 'bravo charlie', '"alpha bravo"'].entries()) {
      const store = dir.open(`scores${k}.db`)
      const db = store.connection()
      for (let i = 0; i < SEARCH_BATCH_ROWS + 10; i += 2) {
        store.append('s', [user(text(i)), assistant(text(i + 1))])
        // The first batch is indexed at the turn of the event loop after it is complete.
        if (i + 2 === SEARCH_BATCH_ROWS) await idleTurn()
      }
      // A message without text is a row of the index too (FTS5 counts it in its averages). (Not with the
      // phrase: its document count in the index is an upper bound, which the one more row tips over.)
      const extra = k === 0 ? 1 : 0
      if (extra === 1)
        store.append('s', {
          role: 'user',
          content: [{ image: { format: 'png', source: { bytes: 'aGVsbG8=' } } }],
        })
      // The first batch is indexed; the last 10 or 11 messages wait above the watermark.
      expect(watermark(db)).toBe(SEARCH_BATCH_ROWS)
      const before = store.search(q, { limit: 1000 })
      expect(before.some((h) => h.seq >= SEARCH_BATCH_ROWS)).toBe(true)
      expect(store.indexPending()).toBe(true)
      expect(watermark(db)).toBe(SEARCH_BATCH_ROWS + 10 + extra)
      const after = new Map(store.search(q, { limit: 1000 }).map((h) => [h.seq, h.score]))
      expect(before.map((h) => h.seq).sort()).toStrictEqual([...after.keys()].sort())
      for (const h of before)
        if (h.seq >= SEARCH_BATCH_ROWS)
          expect(h.score, `${q} seq ${h.seq}`).toBeCloseTo(after.get(h.seq) ?? 0, 9)
    }
  })
})

describe('search paging', () => {
  const VOCAB = ['alpha', 'bravo', 'charlie', 'delta', 'echo']
  // A page is a slice of the one ranked list, whatever its size: the pending rows are re-scored with the
  // index's statistics before the list is cut (cutting by the temporary table's own bm25 first dropped
  // rows that rank high once re-scored, so `limit: 1` could miss the best hit).
  it('pages of any size concatenated equal one big call, and limit k is its first k', () => {
    fc.assert(
      fc.property(
        // The words common in the indexed messages are rare among the pending ones, and the other way
        // round, so the two statistics rank differently.
        fc.array(fc.array(fc.constantFrom('alpha', 'alpha', 'bravo', 'x'), { minLength: 1, maxLength: 6 }), {
          minLength: SEARCH_BATCH_ROWS,
          maxLength: 2 * SEARCH_BATCH_ROWS,
        }),
        fc.array(
          fc.array(fc.constantFrom(...VOCAB, 'charlie', 'delta', 'echo'), { minLength: 1, maxLength: 6 }),
          {
            minLength: 1,
            maxLength: SEARCH_BATCH_ROWS - 1,
          },
        ),
        fc.subarray(VOCAB, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        (old, recent, query, any, size) => {
          const store = dir.open(`p${Math.random().toString(36).slice(2)}.db`)
          try {
            const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
            const texts = [...old, ...recent]
            texts.forEach((words, i) => {
              m.append((i % 2 === 0 ? user : assistant)(words.join(' ')))
              // The old ones indexed, the recent ones waiting above the watermark.
              if (i === old.length - 1) expect(store.indexPending()).toBe(true)
            })
            const q = query.join(' ')
            const match = any ? ('any' as const) : ('all' as const)
            const key = (h: { seq: number; score: number }): string => `${h.seq}:${h.score}`
            const all = store.search(q, { limit: 1000, match }).map(key)
            const pages: string[] = []
            for (let offset = 0; offset <= all.length; offset += size)
              pages.push(...store.search(q, { limit: size, offset, match }).map(key))
            expect(pages).toStrictEqual(all)
            for (const k of [1, 2, size])
              expect(store.search(q, { limit: k, match }).map(key)).toStrictEqual(all.slice(0, k))
          } finally {
            store.close()
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it("keeps the best pending hit under limit 1 (the tester's case)", () => {
    const store = dir.open('rank4.db')
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
    for (let i = 0; i < 32; i++) m.append((i % 2 ? assistant : user)(`beta filler ${i}`))
    store.indexPending()
    for (let i = 0; i < 20; i++)
      m.append((i % 2 ? assistant : user)(i === 0 ? 'beta' : i === 19 ? 'alpha' : `alpha pending ${i}`))
    const all = store.search('alpha beta', { match: 'any', limit: 1000 })
    expect(store.search('alpha beta', { match: 'any', limit: 1 })).toStrictEqual(all.slice(0, 1))
    expect(all[0]?.seq).toBe(51)
  })
})

describe('a large message', () => {
  it('makes a batch by itself, and one too large to wait is indexed in its own append', async () => {
    const store = dir.open('large.db')
    const db = store.connection()
    store.append('s', [user('small one'), assistant('small two')])
    await idleTurn()
    expect(watermark(db)).toBe(0)
    const text = (n: number, word: string): string =>
      `${Array.from({ length: n }, (_, i) => `w${i % 500}`).join(' ')} ${word}`
    // A batch of characters, under the bound on what may wait: indexed by the pass, not the append.
    const big = text(20_000, 'needleword')
    expect(big.length).toBeGreaterThan(SEARCH_BATCH_CHARS)
    expect(big.length).toBeLessThan(SEARCH_PENDING_MAX_CHARS)
    store.append('s', user(big))
    expect(watermark(db)).toBe(0)
    expect(store.search('needleword').map((h) => h.seq)).toStrictEqual([2])
    await idleTurn()
    expect(watermark(db)).toBe(3)
    // Over the bound: the append indexes what waited, itself included.
    store.append('s', user('small three'))
    const huge = text(40_000, 'haystackword')
    expect(huge.length).toBeGreaterThan(SEARCH_PENDING_MAX_CHARS)
    store.append('s', user(huge))
    expect(waiting(db)).toBe(0)
    expect(store.search('haystackword').map((h) => h.seq)).toStrictEqual([4])
    expect(store.search('small').map((h) => h.seq)).toStrictEqual([0, 1, 3])
    // Small appends wait for their batch again.
    store.append('s', user('small four'))
    await idleTurn()
    expect(waiting(db)).toBe(1)
  })
})

describe('search from another connection', () => {
  it('works read-only, and inside a write batch sees the batch own rows', () => {
    const writer = dir.open('shared.db')
    writer.append('s', [user('alpha beta'), assistant('gamma')])
    const reader = dir.open('shared.db', { readonly: true })
    expect(reader.search('alpha').map((h) => h.seq)).toStrictEqual([0])
    writer.batch('s', () => {
      writer.append('s', user('delta alpha'))
      expect(
        writer
          .search('alpha')
          .map((h) => h.seq)
          .sort(),
      ).toStrictEqual([0, 2])
      // The reader's snapshot does not hold the uncommitted row.
      expect(reader.search('delta')).toStrictEqual([])
    })
    expect(reader.search('delta').map((h) => h.seq)).toStrictEqual([2])
    expect(() => reader.indexPending()).toThrow(/read/i)
  })
})

describe('search completeness', () => {
  const VOCAB = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']
  // The watermark's states: event-loop turns between appends at random (each lets the index's pass run),
  // or none (a tight loop: up to the bound on what may wait, then indexed inside an append).
  it('finds exactly the messages a brute-force scan finds, at every state of the watermark, and scores the waiting ones as once indexed', async () => {
    let mostWaiting = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 320,
          size: 'max',
        }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
        fc.subarray(VOCAB, { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        fc.constantFrom(0, 3, 12),
        async (texts, chunks, query, any, yieldEvery) => {
          const store = dir.open(`c${Math.random().toString(36).slice(2)}.db`)
          try {
            const db = store.connection()
            const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 7 })
            let i = 0
            let c = 0
            while (i < texts.length) {
              const n = chunks[c++ % chunks.length] ?? 1
              const part = texts.slice(i, i + n)
              m.append(part.map((words, k) => ((i + k) % 2 === 0 ? user : assistant)(words.join(' '))))
              i += part.length
              if (c % 3 === 0) m.applyWindow()
              expect(waiting(db)).toBeLessThan(SEARCH_PENDING_MAX_ROWS)
              if (yieldEvery > 0 && c % yieldEvery === 0) await idleTurn()
            }
            mostWaiting = Math.max(mostWaiting, waiting(db))
            const expected = texts
              .map((words, seq) => ({ seq, words }))
              .filter(({ words }) =>
                any ? query.some((q) => words.includes(q)) : query.every((q) => words.includes(q)),
              )
              .map(({ seq }) => seq)
            const options = { limit: 1000, match: any ? ('any' as const) : ('all' as const) }
            const hits = store.search(query.join(' '), options)
            expect(hits.map((h) => h.seq).sort((a, b) => a - b)).toStrictEqual(expected)
            const scores = hits.map((h) => h.score)
            expect(scores).toStrictEqual([...scores].sort((a, b) => a - b))
            for (const h of hits)
              expect(h.inWindow).toBe(m.history({ fromSeq: h.seq, limit: 1 })[0]?.inWindow)
            // The waiting messages' scores are those the index gives them once they are indexed.
            const waitingSeqs = new Set(
              db
                .prepare<[number], number>('SELECT seq FROM messages WHERE id > ?')
                .pluck()
                .all(watermark(db)),
            )
            expect(store.indexPending()).toBe(true)
            const after = new Map(store.search(query.join(' '), options).map((h) => [h.seq, h.score]))
            for (const h of hits)
              if (waitingSeqs.has(h.seq))
                expect(h.score, `seq ${h.seq}`).toBeCloseTo(after.get(h.seq) ?? 0, 9)
          } finally {
            store.close()
          }
        },
      ),
      { numRuns: 40 },
    )
    // The runs reached large waiting sets (a tight loop of 320 messages leaves 64 or more).
    expect(mostWaiting).toBeGreaterThan(2 * SEARCH_BATCH_ROWS)
  })
})
