/**
 * Search on a tree of branches against a brute-force reference, on SQLite files: random trees (forks of
 * any session at any seq, rewinds, appends on every side, windows applied, the index's watermark
 * anywhere), then for every session and a random word, `search(word, { sessionId })` finds exactly the
 * messages of that session's `history()` whose text holds the word — its ancestors' up to each fork
 * point and its own, never a sibling's — each with the branch's seq, place in the window and pin. A
 * search with no session filter lists every stored row holding the word once, under the session that
 * holds it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import { describeProblem } from '../../src/check/problems.js'
import { PersistentConversationManager, type ContextStore, type MessageData } from '../../src/index.js'
import { fcRuns } from '../helpers/runs.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-branch-search-')

/** Words the porter stemmer keeps apart (none is another's stem). */
const WORDS = ['apple', 'river', 'stone', 'cloud', 'ember', 'maple', 'quartz', 'violet'] as const

type Op =
  | { kind: 'append'; on: number; texts: number[][] }
  | { kind: 'fork'; on: number; at: number }
  | { kind: 'rewind'; on: number; to: number }
  | { kind: 'window'; on: number; size: number }
  | { kind: 'pin'; on: number; at: number }
  | { kind: 'summarize'; on: number; word: number }
  | { kind: 'index' }

const words = fc.array(fc.integer({ min: 0, max: WORDS.length - 1 }), { minLength: 1, maxLength: 3 })
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      on: fc.nat(),
      texts: fc.array(words, { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork' as const), on: fc.nat(), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), on: fc.nat(), to: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('window' as const),
      on: fc.nat(),
      size: fc.integer({ min: 2, max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pin' as const), on: fc.nat(), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('summarize' as const), on: fc.nat(), word: fc.nat() }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'index' as const }) },
)

const textOf = (ws: readonly number[]): string => ws.map((w) => WORDS[w] ?? 'apple').join(' ')

/** Alternating user and assistant text messages, continuing the session's roles. */
function messages(store: ContextStore, id: string, texts: readonly number[][]): MessageData[] {
  const n = store.messageCount(id)
  return texts.map((t, i) => ({
    role: (n + i) % 2 === 0 ? 'user' : 'assistant',
    content: [{ text: textOf(t) }],
  }))
}

/** Runs one op against the store; sessions holds every session id made so far. */
async function apply(store: ContextStore, sessions: string[], o: Op): Promise<void> {
  if (o.kind === 'index') {
    store.indexPending()
    return
  }
  if (o.kind === 'summarize') {
    const id = sessions[o.on % sessions.length] ?? 'root'
    const m = new PersistentConversationManager({ store, sessionId: id, windowSize: 4 })
    await m.summarize(() => `summary of ${WORDS[o.word % WORDS.length] ?? 'apple'}`, {
      summaryRatio: 0.5,
      preserveRecentMessages: 2,
    })
    return
  }
  const id = sessions[o.on % sessions.length] ?? 'root'
  const count = store.messageCount(id)
  switch (o.kind) {
    case 'append':
      store.append(id, messages(store, id, o.texts))
      return
    case 'fork':
      if (count === 0) return
      sessions.push(store.fork(id, { atSeq: o.at % count }).sessionId)
      return
    case 'rewind': {
      if (count < 2) return
      const r = store.rewind(id, { toSeq: o.to % count })
      if (r.abandoned !== undefined) sessions.push(r.abandoned.sessionId)
      return
    }
    case 'window':
      store.applyWindow(id, { windowSize: o.size, tokenBudget: undefined, first: 0, last: 0 })
      return
    case 'pin':
      if (count > 0) store.pin(id, { seq: o.at % count })
  }
}

/** The seqs of a session's history whose text holds the word, with their place and pin. */
function reference(store: ContextStore, id: string, word: string): string[] {
  return store
    .history(id, { limit: 100_000 })
    .filter((e) =>
      JSON.stringify(e.message.content)
        .split(/[^a-z]+/)
        .includes(word),
    )
    .map((e) => `${e.seq}:${e.inWindow ? 'in' : 'out'}:${e.pinned ? 'pinned' : '-'}`)
    .sort()
}

describe('search on branches', () => {
  it('finds in each branch exactly what a scan of its history finds, and each stored row once unfiltered', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: WORDS.length - 1 }),
        async (ops, w) => {
          const store = dir.open(`p${Math.random().toString(36).slice(2)}.db`)
          try {
            const sessions = ['root']
            store.append('root', messages(store, 'root', [[0, 1], [2], [3, 4]]))
            for (const o of ops) await apply(store, sessions, o)
            const word = WORDS[w] ?? 'apple'
            let stored = 0
            for (const id of sessions) {
              const hits = store.search(word, {
                sessionId: id,
                limit: 1000,
                summaries: false,
                excludeTools: [],
              })
              expect(hits.every((h) => h.sessionId === id)).toBe(true)
              const found = hits.map(
                (h) => `${h.seq}:${h.inWindow ? 'in' : 'out'}:${h.pinned ? 'pinned' : '-'}`,
              )
              expect(found.sort(), `session ${id}`).toStrictEqual(reference(store, id, word))
              // Its summaries: its own and the one it inherited, as summaries() lists them.
              const summaryHits = store
                .search(word, { sessionId: id, limit: 1000, excludeTools: [] })
                .filter((h) => h.kind === 'summary')
                .map((h) => h.summaryId)
              const summaries = store
                .summaries(id)
                .filter((x) =>
                  JSON.stringify(x.message.content)
                    .split(/[^a-z]+/)
                    .includes(word),
                )
                .map((x) => x.id)
              expect(summaryHits.sort(), `summaries of ${id}`).toStrictEqual(summaries.sort())
              const info = store.branches(id).find((b) => b.sessionId === id)
              const own = store
                .history(id, {
                  fromSeq: info?.forkSeq === null || info === undefined ? 0 : info.forkSeq + 1,
                  limit: 100_000,
                })
                .filter((e) =>
                  JSON.stringify(e.message.content)
                    .split(/[^a-z]+/)
                    .includes(word),
                )
              stored += own.length
            }
            // The checker holds every session of the tree, branch or root, to every rule.
            for (const id of sessions)
              expect(checkSession(store, id).problems.map(describeProblem), `check ${id}`).toStrictEqual([])
            const all = store.search(word, { limit: 1000, summaries: false, excludeTools: [] })
            const keys = all.map((h) => `${h.sessionId}:${h.seq}`)
            expect(new Set(keys).size).toBe(keys.length)
            expect(all.length).toBe(stored)
          } finally {
            store.close()
          }
        },
      ),
      { numRuns: fcRuns(40) },
    )
  })
})
