/**
 * `store.search()`'s filters against a brute-force reference, on either backend (a conformance-suite
 * file): on a fixed small ledger (two sessions, tool calls of three names, pins, an evicted part and a
 * summary), a search with any mix of filters and paging finds exactly the hits of the same query without
 * filters (every tool's messages kept), kept by the filters' own definitions in JS, in the same order, then
 * paged. PostgreSQL's statement reads the session, the tool calls and the window bound for each match in
 * its own way (docs/postgres.md, "Search"): whatever the plan, the answer is this one.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_SEARCH_LIMIT, RECALL_TOOL_NAMES, type MessageData, type SearchHit } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const WORDS = ['apple', 'river', 'stone', 'cloud', 'ember'] as const
const TOOLS = ['kubectl', 'search_history', 'read_history'] as const

/** The tool names of each message that is a tool's call or result: `session:seq` → names. */
const toolsOf = new Map<string, string[]>()
let store: LedgerStore

/** Two sessions of messages in {@link WORDS}, every fourth one a tool call answered by the next one. */
beforeAll(async () => {
  store = await backend.open()
  let n = 0
  const text = (): string => `${WORDS[n % 5]} ${WORDS[(n * 3 + 1) % 5]} filler ${WORDS[(n * 7 + 2) % 5]}`
  for (const sessionId of ['a', 'b']) {
    const m = backend.manager(store, { sessionId, windowSize: 10 })
    for (let seq = 0; seq < 36; n++) {
      if (n % 4 === 3) {
        const name = TOOLS[n % 3] ?? 'kubectl'
        const id = `t${n}`
        const call: MessageData = {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: id, name, input: { q: text() } } }],
        }
        const result: MessageData = {
          role: 'user',
          content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: text() }] } }],
        }
        await m.append([call, result])
        toolsOf.set(`${sessionId}:${seq}`, [name])
        toolsOf.set(`${sessionId}:${seq + 1}`, [name])
        seq += 2
      } else {
        await m.append({ role: seq % 2 === 0 ? 'user' : 'assistant', content: [{ text: text() }] })
        seq += 1
      }
    }
    await m.pin({ seq: 0 }, { reason: 'task' })
    await m.pin({ seq: 5 }, { reason: 'task' })
    await m.applyWindow()
    if (sessionId === 'a')
      await m.summarize(() => `${WORDS[0]} ${WORDS[1]} were discussed`, {
        summaryRatio: 0.5,
        preserveRecentMessages: 2,
      })
  }
})

/** What a hit is, for comparing lists of them. */
const key = (h: SearchHit): string =>
  `${h.kind}:${h.sessionId}:${h.kind === 'summary' ? `#${h.summaryId}` : h.seq}`

/** The filters a search may take. */
interface Filters {
  sessionId?: 'a' | 'b' | 'c'
  role?: 'user' | 'assistant'
  pinned?: boolean
  inWindow?: boolean
  toolName?: (typeof TOOLS)[number] | 'none'
  excludeTools?: string[]
  summaries?: boolean
}

/** Whether a hit passes the filters, by their definitions (docs/api.md, "search"). */
function keeps(h: SearchHit, f: Filters): boolean {
  const tools = h.kind === 'message' ? (toolsOf.get(`${h.sessionId}:${h.seq}`) ?? []) : []
  const skip = f.excludeTools ?? RECALL_TOOL_NAMES
  return (
    (f.sessionId === undefined || h.sessionId === f.sessionId) &&
    (f.role === undefined || h.role === f.role) &&
    (f.pinned === undefined || h.pinned === f.pinned) &&
    (f.inWindow === undefined || h.inWindow === f.inWindow) &&
    (f.toolName === undefined || tools.includes(f.toolName)) &&
    !tools.some((t) => skip.includes(t)) &&
    (f.summaries !== false || h.kind === 'message')
  )
}

describe(`store.search filters [${BACKEND}]`, () => {
  it('each filter alone, at each of its values, keeps what a brute-force filter keeps, in order', async () => {
    const each: Filters[] = [
      ...(['a', 'b', 'c'] as const).map((sessionId) => ({ sessionId })),
      ...(['user', 'assistant'] as const).map((role) => ({ role })),
      ...[true, false].flatMap((v) => [{ pinned: v }, { inWindow: v }, { summaries: v }]),
      ...[...TOOLS, 'none' as const].flatMap((toolName) => [{ toolName }, { toolName, excludeTools: [] }]),
      ...[[], ['kubectl'], ['search_history'], [...TOOLS]].map((excludeTools) => ({ excludeTools })),
    ]
    let kept = 0
    for (const [query, match] of [
      [WORDS.join(' '), 'any'],
      ['apple river', 'all'],
      ['ember', 'any'],
    ] as const) {
      const unfiltered = await store.search(query, { match, limit: MAX_SEARCH_LIMIT, excludeTools: [] })
      for (const filters of each) {
        const expected = unfiltered.filter((h) => keeps(h, filters))
        const got = await store.search(query, { match, ...filters, limit: MAX_SEARCH_LIMIT })
        expect(got.map(key), JSON.stringify([query, filters])).toStrictEqual(expected.map(key))
        kept += expected.length
      }
    }
    expect(kept).toBeGreaterThan(500)
  })

  it('any mix of them, paged, keeps exactly the hits a brute-force filter of the unfiltered search keeps, in its order, then paged', async () => {
    const all = await store.search(WORDS.join(' '), {
      match: 'any',
      limit: MAX_SEARCH_LIMIT,
      excludeTools: [],
    })
    // The ledger has what the filters choose between.
    expect(all.some((h) => h.kind === 'summary')).toBe(true)
    expect(all.some((h) => !h.inWindow)).toBe(true)
    expect(all.some((h) => h.pinned)).toBe(true)
    expect(all.some((h) => (toolsOf.get(`${h.sessionId}:${h.seq}`) ?? []).includes('search_history'))).toBe(
      true,
    )
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...WORDS], { minLength: 1, maxLength: 3 }),
        fc.constantFrom('any' as const, 'all' as const),
        fc.record(
          {
            sessionId: fc.constantFrom('a' as const, 'b' as const, 'c' as const),
            role: fc.constantFrom('user' as const, 'assistant' as const),
            pinned: fc.boolean(),
            inWindow: fc.boolean(),
            toolName: fc.constantFrom(...TOOLS, 'none' as const),
            excludeTools: fc.subarray([...TOOLS]),
            summaries: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10 }),
        async (words, match, filters, limit, offset) => {
          const query = words.join(' ')
          const unfiltered = await store.search(query, { match, limit: MAX_SEARCH_LIMIT, excludeTools: [] })
          const expected = unfiltered.filter((h) => keeps(h, filters)).slice(offset, offset + limit)
          const got = await store.search(query, { match, ...filters, limit, offset })
          expect(got.map(key)).toStrictEqual(expected.map(key))
          expect(got.map((h) => h.score)).toStrictEqual(expected.map((h) => h.score))
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 60) },
    )
  })
})
