/**
 * Deep lineages on PostgreSQL against SQLite, step for step. The branch statement finds the latest trim
 * point below a seq by walking the lineage parts newest first and stopping at the first that answers
 * (`snapshot-branch.ts`, `lastCut` and `FIRST_PLAIN`), with the fork points' flags taken from the branch's
 * own cut rows. A walk that stops one part too early or too late shows as a window that differs from
 * SQLite's, which reads the same lineage by other code. So random commands grow lineages 20–60 deep —
 * forks of the newest branch, mostly at its newest message, at its own fork point (empty parts), just
 * before it; parts without any trim point (tool calls and answers only, so the latest trim point is
 * several parts up); tool calls answered only after a later fork point; rewinds before a fork point;
 * forks by trackingId; folds into summaries — and after every step the touched sessions read the same on
 * both stores (window entries, history, session, summaries), and at the end every session of the tree.
 * `FC_RUNS` runs more; `FC_SEED` replays (and shrinks) a failing run.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FoldRequest, MessageData, WindowLimits } from '../../src/index.js'
import { estimateTokens } from '../../src/index.js'
import { makeSummary } from '../../src/summaries/summarize.js'
import { asyncSqliteStore, type LedgerStore } from '../helpers/ledger-open.js'
import { fcRuns } from '../helpers/runs.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { useDatabases } from './databases.js'
import { norm } from './differential.js'

const { database, open } = useDatabases()

/** What a step appends: parts of a turn, some without any trim point. */
type Piece = 'text turn' | 'tool turn' | 'user' | 'assistant' | 'call' | 'result' | 'call and result'

type Step =
  | { readonly kind: 'append'; readonly piece: Piece; readonly pick: number }
  | { readonly kind: 'fork'; readonly at: 'newest' | 'forkPoint' | 'back'; readonly back: number }
  | { readonly kind: 'forkBy'; readonly pick: number; readonly back: number; readonly trackingId: boolean }
  | { readonly kind: 'rewind'; readonly pick: number; readonly back: number }
  | {
      readonly kind: 'window'
      readonly pick: number
      readonly limits: WindowLimits
      readonly mode: 'apply' | 'overflow'
    }
  | { readonly kind: 'pin'; readonly pick: number; readonly back: number; readonly unpin: boolean }
  | { readonly kind: 'fold'; readonly pick: number; readonly ratio: number }

const limits: fc.Arbitrary<WindowLimits> = fc.record({
  windowSize: fc.integer({ min: 2, max: 14 }),
  tokenBudget: fc.constantFrom(undefined, 60, 200),
  first: fc.integer({ min: 0, max: 2 }),
  last: fc.integer({ min: 0, max: 3 }),
})

const PIECES: Piece[] = ['text turn', 'tool turn', 'user', 'assistant', 'call', 'result', 'call and result']
const pick = fc.nat(1000)
const back = fc.nat(8)

/** Forks dominate, so the lineage grows deep; appends between them are often pieces without trim points. */
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('append' as const), piece: fc.constantFrom(...PIECES), pick }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      at: fc.constantFrom('newest' as const, 'forkPoint' as const, 'back' as const),
      back,
    }),
    weight: 9,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('forkBy' as const), pick, back, trackingId: fc.boolean() }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick, back }), weight: 1 },
  {
    // An overflow reduce cuts below the newest turn: the latest trim point below a seq, the walk's other use.
    arbitrary: fc.record({
      kind: fc.constant('window' as const),
      pick,
      limits,
      mode: fc.constantFrom('apply' as const, 'apply' as const, 'overflow' as const),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('pin' as const), pick, back, unpin: fc.boolean() }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('fold' as const), pick, ratio: fc.constantFrom(0.3, 0.6, 1) }),
    weight: 1,
  },
)

/** What a call gave: its value, or the code of the error it threw. */
async function outcome<T>(call: () => Promise<T>): Promise<{ value: T } | { code: unknown }> {
  try {
    return { value: await call() }
  } catch (error) {
    return { code: (error as { code?: unknown }).code ?? String(error) }
  }
}

/** One random run: the same steps on both stores, in one tree of sessions rooted at `root`. */
class Lockstep {
  private n = 0
  private readonly ids: string[]
  /** The branch forked last (the lineage's deepest, mostly). */
  private tip: string
  private forks = 0
  private readonly limits = new Map<string, WindowLimits>()
  private readonly summarizer = recordingSummarizer()

  constructor(
    private readonly sq: LedgerStore,
    private readonly pg: LedgerStore,
    private readonly root: string,
  ) {
    this.ids = [root]
    this.tip = root
  }

  private msg(role: 'user' | 'assistant', content: MessageData['content']): MessageData {
    return { role, content, trackingId: `${this.root}-m${this.n++}` }
  }

  private pieces(piece: Piece): MessageData[] {
    const k = this.n
    const call = `${this.root}c${k}`
    const use = this.msg('assistant', [{ toolUse: { name: 'look', toolUseId: call, input: { k } } }])
    const result = (id: string): MessageData =>
      this.msg('user', [
        { toolResult: { toolUseId: id, status: 'success', content: [{ text: `found ${k}` }] } },
      ])
    switch (piece) {
      case 'text turn':
        return [
          this.msg('user', [{ text: `question ${k}` }]),
          this.msg('assistant', [{ text: `answer ${k}` }]),
        ]
      case 'tool turn':
        return [
          this.msg('user', [{ text: `ask ${k}` }]),
          use,
          result(call),
          this.msg('assistant', [{ text: `ok ${k}` }]),
        ]
      case 'user':
        return [this.msg('user', [{ text: `more ${k}` }])]
      case 'assistant':
        return [this.msg('assistant', [{ text: `also ${k}` }])]
      case 'call':
        return [use]
      case 'result':
        // Answers the newest call of the whole run if still open (else a stray result the store refuses or
        // repairs — the same on both).
        return [result(`${this.root}c${Math.max(0, k - 1)}`)]
      case 'call and result':
        return [use, result(call)]
    }
  }

  private async count(id: string): Promise<number> {
    return this.sq.messageCount(id)
  }

  /** Runs `call` on both stores; the outcomes must agree. */
  private async both<T>(what: string, call: (s: LedgerStore) => Promise<T>): Promise<T | undefined> {
    const want = await outcome(() => call(this.sq))
    const got = await outcome(() => call(this.pg))
    expect(norm(got), what).toStrictEqual(norm(want))
    return 'value' in want ? want.value : undefined
  }

  /** Every read of `id` agrees. */
  async same(id: string, what: string): Promise<void> {
    await this.both(`${what}: windowEntries(${id})`, (s) => s.windowEntries(id))
    await this.both(`${what}: window(${id})`, (s) => s.window(id))
    await this.both(`${what}: history(${id})`, (s) => s.history(id, { limit: 100_000 }))
    await this.both(`${what}: session(${id})`, (s) => s.session(id))
    await this.both(`${what}: summaries(${id})`, (s) => s.summaries(id))
  }

  private choose(p: number): string {
    // Mostly the tip: the deep end of the lineage is what the walk is about.
    return p % 3 === 0 ? (this.ids[p % this.ids.length] as string) : this.tip
  }

  async run(s: Step, index: number): Promise<void> {
    const what = `step ${index} ${JSON.stringify(s)}`
    let touched: string[] = []
    switch (s.kind) {
      case 'append': {
        const id = this.choose(s.pick)
        const messages = this.pieces(s.piece)
        await this.both(`${what}: append`, (st) => st.append(id, messages))
        touched = [id]
        break
      }
      case 'fork':
      case 'forkBy': {
        const from = s.kind === 'fork' ? this.tip : this.choose(s.pick)
        const count = await this.count(from)
        if (count === 0) return
        const info = await this.sq.session(from)
        const forkSeq = info?.forkSeq ?? null
        const atSeq =
          s.kind === 'fork' && s.at === 'newest'
            ? count - 1
            : s.kind === 'fork' && s.at === 'forkPoint' && forkSeq !== null
              ? forkSeq
              : Math.max(0, count - 1 - s.back)
        const newSessionId = `${this.root}.f${this.forks++}`
        // By trackingId: each store's own (a repair row's is minted, so it differs between them).
        const point = async (st: LedgerStore): Promise<{ trackingId: string } | { atSeq: number }> =>
          s.kind === 'forkBy' && s.trackingId
            ? { trackingId: (await st.message(from, { seq: atSeq })).trackingId }
            : { atSeq }
        const made = await this.both(`${what}: fork`, async (st) =>
          st.fork(from, { ...(await point(st)), newSessionId }),
        )
        if (made !== undefined) {
          this.ids.push(newSessionId)
          this.tip = newSessionId
          const l = this.limits.get(from)
          if (l !== undefined) this.limits.set(newSessionId, l)
        }
        touched = [from, newSessionId]
        break
      }
      case 'rewind': {
        const id = this.choose(s.pick)
        const count = await this.count(id)
        if (count === 0) return
        // Into its own rows, at its fork point, or before it (the branch then inherits less).
        const toSeq = Math.max(0, count - 1 - s.back)
        const r = await this.both(`${what}: rewind`, (st) => st.rewind(id, { toSeq }))
        touched = [id]
        if (r?.abandoned !== undefined) {
          this.ids.push(r.abandoned.sessionId)
          touched.push(r.abandoned.sessionId)
        }
        break
      }
      case 'window': {
        const id = this.choose(s.pick)
        this.limits.set(id, s.limits)
        await this.both(`${what}: applyWindow`, (st) => st.applyWindow(id, s.limits, s.mode))
        touched = [id]
        break
      }
      case 'pin': {
        const id = this.choose(s.pick)
        const count = await this.count(id)
        if (count === 0) return
        const l = this.limits.get(id) ?? { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }
        const seq = Math.max(0, count - 1 - s.back)
        await this.both(`${what}: pin`, (st) =>
          s.unpin ? st.unpin(id, { seq }) : st.pin(id, { seq }, {}, l),
        )
        touched = [id]
        break
      }
      case 'fold': {
        const id = this.choose(s.pick)
        const l = this.limits.get(id) ?? { windowSize: 40, tokenBudget: undefined, first: 0, last: 0 }
        await this.fold(id, l, { kind: 'ratio', ratio: s.ratio, preserve: 1 }, what)
        touched = [id]
        break
      }
    }
    for (const id of touched) await this.same(id, what)
  }

  private async fold(id: string, l: WindowLimits, request: FoldRequest, what: string): Promise<void> {
    const plans = await this.both(`${what}: planFold`, (st) => st.planFold(id, l, request))
    if (plans === undefined || 'nothing' in plans) return
    const stores = [this.sq, this.pg]
    const written = []
    for (const st of stores) {
      const planned = await st.planFold(id, l, request)
      if ('nothing' in planned) throw new Error(`${what}: planned once, then nothing`)
      const previous =
        planned.plan.previous === undefined ? undefined : await st.summary(id, planned.plan.previous)
      const context = { store: st, sessionId: id, limits: l, tokenCounter: estimateTokens }
      const made = await makeSummary(context, this.summarizer.summarize, planned.plan.input, previous, {
        systemPrompt: undefined,
        model: undefined,
      })
      written.push(await outcome(() => st.writeFold(planned.plan, made)))
    }
    expect(norm(written[1]), `${what}: writeFold`).toStrictEqual(norm(written[0]))
  }

  /** The lineage depth the run reached. */
  async depth(): Promise<number> {
    const tree = await this.sq.branches(this.root)
    return Math.max(...tree.map((b) => b.depth))
  }

  async all(what: string): Promise<void> {
    const tree = await this.both(`${what}: branches`, (s) => s.branches(this.root))
    for (const b of tree ?? []) await this.same(b.sessionId, what)
  }
}

let dir: TempDir
let sq: LedgerStore
let pg: LedgerStore
let runs = 0
const depths: number[] = []

beforeAll(async () => {
  dir = tempDir()
  const sqlite = dir.open()
  sq = asyncSqliteStore(sqlite, sqlite.path)
  pg = await open(await database())
})
afterAll(() => {
  dir.cleanup()
})

describe('deep lineages on PostgreSQL against SQLite', () => {
  it(
    'window, history, session and summaries agree after every step',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 70, maxLength: 110 }), async (steps) => {
          const run = new Lockstep(sq, pg, `r${runs++}`)
          // A first turn, so the first fork has something to inherit.
          await run.run({ kind: 'append', piece: 'tool turn', pick: 1 }, -1)
          for (const [i, s] of steps.entries()) await run.run(s, i)
          await run.all('end')
          depths.push(await run.depth())
        }),
        {
          numRuns: fcRuns(2),
          // FC_SEED replays a failing run (and shrinks it).
          ...(process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) }),
        },
      )
      // The runs reach the depths the walk is about.
      expect(Math.max(...depths)).toBeGreaterThanOrEqual(20)
      // A run takes a few seconds on a loaded machine: the timeout grows with FC_RUNS.
    },
    60_000 + fcRuns(2) * 20_000,
  )
})
