/**
 * Branches on SQLite (docs/design.md, "Branches"): a fork at the newest message shows the parent's window
 * exactly; forks of forks read each ancestor's rows up to each fork point and continue the seqs; nothing
 * the parent or a sibling writes after the fork reaches a branch (rows, pins, edits, summaries), nor the
 * reverse; a call open at the fork point is answered by the branch's own rows; the manager works on a
 * branch id as on any session.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  type ContextStore,
  type MessageData,
  type WindowLimits,
} from '../../src/index.js'
import { countStatements, type Work } from '../helpers/statement-counter.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { assertWindowRulesThroughApi } from '../helpers/window-rules.js'

const LIMITS: WindowLimits = { windowSize: 4, tokenBudget: undefined, first: 0, last: 0 }

/** One turn: a question, a tool call, its result, an answer (seqs 4t … 4t + 3 when appended in order). */
function turn(t: number | string): MessageData[] {
  return [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ]
}

/** The texts of a session's history (first block of each message, short). */
function texts(store: ContextStore, id: string): string[] {
  return store.history(id, { limit: 10_000 }).map((e) => short(e.message.content[0]))
}

function short(block: unknown): string {
  const b = block as Record<string, { toolUseId?: string; status?: string } | string | undefined>
  if (typeof b.text === 'string') return b.text
  if (typeof b.toolUse === 'object') return `use ${b.toolUse.toolUseId}`
  if (typeof b.toolResult === 'object') return `result ${b.toolResult.toolUseId} ${b.toolResult.status}`
  return '?'
}

let dir: TempDir
afterEach(() => {
  dir.cleanup()
})

function fresh(): ContextStore {
  dir = tempDir()
  return dir.open()
}

describe('fork', () => {
  it('at the newest message shows exactly the parent window, pins and summary included', async () => {
    const store = fresh()
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    m.append([0, 1, 2, 3].flatMap(turn))
    m.pin({ seq: 0 }, { reason: 'the first question' })
    await m.summarizeExcess(recordingSummarizer().summarize)
    m.applyWindow()
    const before = store.windowEntries('s')
    expect(before.some((e) => e.seq === undefined)).toBe(true)
    const info = store.fork('s', { atSeq: 15, newSessionId: 'b', actor: 'agent', reason: 'try another way' })
    expect(info).toMatchObject({
      sessionId: 'b',
      parentId: 's',
      forkSeq: 15,
      kind: 'fork',
      actor: 'agent',
      reason: 'try another way',
      depth: 1,
      messageCount: 16,
      ownMessages: 0,
    })
    expect(store.windowEntries('b')).toStrictEqual(before)
    expect(store.window('b')).toStrictEqual(store.window('s'))
    const [sFacts, bFacts] = [store.session('s'), store.session('b')]
    expect(bFacts).toMatchObject({
      messageCount: sFacts?.messageCount,
      windowMessages: sFacts?.windowMessages,
      windowTokens: sFacts?.windowTokens,
      totalTokens: sFacts?.totalTokens,
      summaryId: sFacts?.summaryId,
      pinnedCount: 1,
      parentId: 's',
      forkSeq: 15,
      kind: 'fork',
    })
    expect(store.history('b', { limit: 100 })).toStrictEqual(
      store.history('s', { limit: 100 }).map((e) => ({ ...e, sessionId: 'b' })),
    )
    const inherited = store.summaries('b')
    expect(inherited).toHaveLength(1)
    expect(inherited[0]).toMatchObject({ inherited: true, current: true, id: sFacts?.summaryId })
    expect(store.pinnedMessages({ sessionId: 'b' }).map((p) => [p.seq, p.reason])).toStrictEqual([
      [0, 'the first question'],
    ])
    await assertWindowRulesThroughApi(store, 'b', LIMITS)
  })

  it('of a fork reads each ancestor up to its fork point and continues the seqs', async () => {
    const store = fresh()
    store.append('s', [0, 1, 2].flatMap(turn))
    store.fork('s', { atSeq: 7, newSessionId: 'b' })
    store.append('b', turn('b1'))
    store.fork('b', { atSeq: 9, newSessionId: 'c' })
    store.append('c', turn('c1'))
    store.append('b', turn('b2'))
    store.append('s', turn(3))
    expect(texts(store, 'c')).toStrictEqual([
      ...[0, 1].flatMap(turn).map((m) => short(m.content[0])),
      'question b1',
      'use cb1',
      // The call the fork point left open: the branch's next message brought its repair row.
      'result cb1 error',
      ...turn('c1').map((m) => short(m.content[0])),
    ])
    expect(store.history('c', { limit: 100 }).map((e) => e.seq)).toStrictEqual([...Array(15).keys()])
    expect(store.messageCount('c')).toBe(15)
    expect(store.message('c', { seq: 3 }).message).toStrictEqual(store.message('s', { seq: 3 }).message)
    const tracked = store.message('b', { seq: 8 }).trackingId
    expect(store.message('c', { trackingId: tracked }).seq).toBe(8)
    expect(
      store.branches('c').map((b) => [b.sessionId, b.parentId, b.forkSeq, b.depth, b.ownMessages]),
    ).toStrictEqual([
      ['s', null, null, 0, 16],
      ['b', 's', 7, 1, 8],
      ['c', 'b', 9, 2, 5],
    ])
    for (const id of ['s', 'b', 'c']) {
      store.applyWindow(id, LIMITS)
      await assertWindowRulesThroughApi(store, id, LIMITS)
    }
  })

  it('lets a branch answer a call still open at its fork point with its own result', () => {
    const store = fresh()
    store.append('s', turn(0).slice(0, 2))
    store.fork('s', { atSeq: 1, newSessionId: 'b' })
    store.append('s', turn(0).slice(2))
    store.append('b', {
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'c0', status: 'error', content: [{ text: 'not in this branch' }] } },
      ],
    })
    expect(texts(store, 'b')).toStrictEqual(['question 0', 'use c0', 'result c0 error'])
    expect(texts(store, 's')).toStrictEqual(['question 0', 'use c0', 'result c0 success', 'answer 0'])
    expect(store.window('b').at(-1)?.content[0]).toMatchObject({ toolResult: { status: 'error' } })
  })

  it('earlier than the newest message keeps the newest turn it inherits and a valid window', async () => {
    const store = fresh()
    store.append('s', [0, 1, 2, 3, 4].flatMap(turn))
    store.applyWindow('s', LIMITS)
    expect(store.windowEntries('s').map((e) => e.seq)).toStrictEqual([16, 17, 18, 19])
    store.fork('s', { atSeq: 9, newSessionId: 'b' })
    // The parent's window held nothing up to seq 9: the branch's window is its newest turn, from seq 8.
    expect(store.windowEntries('b').map((e) => e.seq)).toStrictEqual([8, 9])
    await assertWindowRulesThroughApi(store, 'b', LIMITS)
    store.append('b', turn(2).slice(2))
    expect(store.windowEntries('b').map((e) => e.seq)).toStrictEqual([8, 9, 10, 11])
  })
})

describe('isolation', () => {
  it('keeps what the parent does after the fork out of the branch, and the reverse', async () => {
    const store = fresh()
    const s = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    s.append([0, 1, 2].flatMap(turn))
    s.applyWindow()
    store.fork('s', { atSeq: 11, newSessionId: 'b' })
    const b = new PersistentConversationManager({ store, sessionId: 'b', windowSize: 6 })
    const bHistory = store.history('b', { limit: 100 })
    const bWindow = store.windowEntries('b')
    // The parent pins, edits, truncates, summarizes, appends and cuts.
    s.pin({ seq: 6 }, { reason: 'parent' })
    s.edit({ seq: 7 }, { role: 'assistant', content: [{ text: 'edited in s' }] })
    const call = store.message('s', { seq: 9 }).message
    s.setWindowContent(
      { seq: 9 },
      { ...call, content: [{ toolUse: { name: 'look', toolUseId: 'c2', input: {} } }] },
    )
    s.append([3, 4].flatMap(turn))
    await s.summarizeExcess(recordingSummarizer().summarize)
    s.applyWindow()
    expect(store.history('b', { limit: 100 })).toStrictEqual(bHistory)
    expect(store.windowEntries('b')).toStrictEqual(bWindow)
    expect(store.pinnedMessages({ sessionId: 'b' })).toStrictEqual([])
    expect(store.pinEvents('b')).toStrictEqual([])
    expect(store.edits('b')).toStrictEqual([])
    expect(store.summaries('b')).toStrictEqual([])
    // The branch does the same; the parent does not see it.
    const sHistory = store.history('s', { limit: 100 })
    const sWindow = store.windowEntries('s')
    const sPins = store.pinEvents('s')
    b.pin({ seq: 4 }, { reason: 'branch' })
    b.edit({ seq: 3 }, { role: 'assistant', content: [{ text: 'edited in b' }] })
    b.append(turn('b'))
    await b.summarizeExcess(recordingSummarizer().summarize)
    b.applyWindow()
    expect(store.history('s', { limit: 100 })).toStrictEqual(sHistory)
    expect(store.windowEntries('s')).toStrictEqual(sWindow)
    expect(store.pinEvents('s')).toStrictEqual(sPins)
    expect(store.pinnedMessages({ sessionId: 'b' }).map((p) => [p.seq, p.reason])).toStrictEqual([
      [4, 'branch'],
    ])
    expect(store.edits('b').map((e) => [e.seq, e.kind])).toStrictEqual([[3, 'edit']])
    expect(store.message('b', { seq: 3 }).windowMessage?.content[0]).toStrictEqual({ text: 'edited in b' })
    expect(store.message('s', { seq: 3 }).windowMessage).toBeUndefined()
    expect(store.window('b').some((m) => JSON.stringify(m).includes('edited in s'))).toBe(false)
    await assertWindowRulesThroughApi(store, 'b', { first: 0, last: 0 })
    await assertWindowRulesThroughApi(store, 's', { first: 0, last: 0 })
  })

  it('shows a branch the pins and edits its parent made before the fork, and a redaction everywhere', () => {
    const store = fresh()
    store.append('s', [0, 1].flatMap(turn))
    store.pin('s', { seq: 0 }, { reason: 'before' })
    store.editMessage('s', { seq: 3 }, { role: 'assistant', content: [{ text: 'edited before' }] })
    store.fork('s', { atSeq: 7, newSessionId: 'b' })
    store.fork('s', { atSeq: 7, newSessionId: 'c' })
    expect(store.pinEvents('b').map((e) => [e.seq, e.action, e.reason])).toStrictEqual([[0, 'pin', 'before']])
    expect(store.edits('b').map((e) => [e.seq, e.kind])).toStrictEqual([[3, 'edit']])
    store.redactMessage('b', { seq: 4 }, { reason: 'secret' })
    for (const id of ['s', 'b', 'c'])
      expect(JSON.stringify(store.message(id, { seq: 4 }).message)).not.toContain('question 1')
    expect(store.edits('b').map((e) => e.kind)).toStrictEqual(['edit', 'redact'])
    expect(store.edits('s').map((e) => e.kind)).toStrictEqual(['edit'])
  })
})

describe('summaries and edits in a branch', () => {
  it('regenerates or drops an inherited summary in the branch only, and explains its window', async () => {
    const store = fresh()
    const s = new PersistentConversationManager({ store, sessionId: 's', windowSize: 6 })
    s.append([0, 1, 2, 3].flatMap(turn))
    const made = await s.summarizeExcess(recordingSummarizer().summarize)
    const id = made.summary?.id as number
    store.fork('s', { atSeq: 15, newSessionId: 'b' })
    const b = new PersistentConversationManager({ store, sessionId: 'b', windowSize: 6 })
    expect(store.explainWindow('b')?.summary).toMatchObject({ id, inherited: true, current: true })
    const again = await b.resummarize(id, recordingSummarizer().summarize)
    expect(again).toMatchObject({ regenerates: id, inherited: false, current: true })
    // The parent still shows its summary, unended; the branch lists it ended by its own regeneration.
    expect(store.summary('s', id)).toMatchObject({ current: true, endedAt: undefined })
    expect(store.summaries('b').map((x) => [x.id, x.inherited, x.current, x.endReason])).toStrictEqual([
      [again.id, false, true, undefined],
      [id, true, false, 'regenerated'],
    ])
    // Dropping the branch's summary brings the inherited messages back into its window only.
    const sWindow = store.windowEntries('s')
    b.dropSummary(again.id)
    expect(store.windowEntries('s')).toStrictEqual(sWindow)
    expect(store.windowEntries('b').some((e) => e.seq === undefined)).toBe(false)
    await assertWindowRulesThroughApi(store, 'b', { first: 0, last: 0 })
    await assertWindowRulesThroughApi(store, 's', { first: 0, last: 0 })
  })

  it('keeps the window form a branch saw of an evicted row when its owner edits the row later', () => {
    const store = fresh()
    store.append('s', [0, 1, 2].flatMap(turn))
    store.applyWindow('s', LIMITS)
    store.fork('s', { atSeq: 11, newSessionId: 'b' })
    store.fork('b', { atSeq: 11, newSessionId: 'c' })
    // Seq 3 is out of every window: no branch row holds it; its owner edits it now.
    expect(store.windowEntries('c').map((e) => e.seq)).toStrictEqual([8, 9, 10, 11])
    store.editMessage('s', { seq: 3 }, { role: 'assistant', content: [{ text: 'edited later in s' }] })
    expect(store.message('s', { seq: 3 }).windowMessage?.content[0]).toStrictEqual({
      text: 'edited later in s',
    })
    for (const id of ['b', 'c']) {
      expect(store.message(id, { seq: 3 }).windowMessage).toBeUndefined()
      expect(store.edits(id)).toStrictEqual([])
    }
    // A pin brings it back into the branch as the branch saw it.
    store.pin('c', { seq: 3 })
    expect(store.window('c').some((m) => JSON.stringify(m).includes('edited later'))).toBe(false)
  })
})

describe('the trunk', () => {
  /** Counts the executions of the branch statements (the store keeps them private: a test reaches in). */
  function countBranchStatements(store: ContextStore): () => number {
    const br = (store as unknown as { ledger: { branches: { br: Record<string, Record<string, unknown>> } } })
      .ledger.branches.br
    let n = 0
    for (const statement of Object.values(br))
      for (const method of ['get', 'all', 'run', 'iterate']) {
        const f = statement[method]
        if (typeof f !== 'function') continue
        statement[method] = (...args: unknown[]) => {
          n++
          return (f as (...a: unknown[]) => unknown).apply(statement, args)
        }
      }
    return () => n
  }

  /** The work of one round on session `t`: an append, a pin, a window application, a window read. */
  function round(store: ContextStore, t: number): Work {
    const counter = countStatements(store)
    return counter.measure(() => {
      store.append('t', turn(`t${t}`))
      store.pin('t', { seq: 4 * t + 1 })
      store.unpin('t', { seq: 4 * t + 1 })
      store.applyWindow('t', LIMITS)
      store.window('t')
      store.history('t', { fromSeq: 4 * t })
    })
  }

  it('runs the statements it ran before branches, and no branch statement, beside a tree of branches', () => {
    dir = tempDir()
    const alone = dir.open('alone.db')
    const beside = dir.open('beside.db')
    beside.append('s', [0, 1].flatMap(turn))
    beside.fork('s', { atSeq: 7, newSessionId: 'b' })
    beside.fork('b', { atSeq: 3, newSessionId: 'c' })
    beside.append('c', turn('c'))
    for (const store of [alone, beside]) store.append('t', turn('t0'))
    const branchCalls = countBranchStatements(beside)
    const before = branchCalls()
    for (let t = 1; t < 4; t++) expect(round(beside, t).byName).toStrictEqual(round(alone, t).byName)
    expect(branchCalls() - before).toBe(0)
  })
})
