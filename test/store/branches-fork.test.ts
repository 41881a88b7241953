/**
 * Branches on either backend (a conformance-suite file; docs/design.md, "Branches"): a fork at the newest
 * message shows the parent's window exactly; forks of forks read each ancestor's rows up to each fork point
 * and continue the seqs; nothing the parent or a sibling writes after the fork reaches a branch (rows, pins,
 * edits, summaries), nor the reverse; a call open at the fork point is answered by the branch's own rows;
 * the manager works on a branch id as on any session. (That a trunk runs no branch statement is SQLite's
 * own: branches-trunk.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { MessageData, WindowLimits } from '../../src/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { recordingSummarizer } from '../helpers/summarizers.js'
import { assertWindowRulesViaApi as assertWindowRulesThroughApi } from '../helpers/window-rules.js'

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
async function texts(store: LedgerStore, id: string): Promise<string[]> {
  return (await store.history(id, { limit: 10_000 })).map((e) => short(e.message.content[0]))
}

function short(block: unknown): string {
  const b = block as Record<string, { toolUseId?: string; status?: string } | string | undefined>
  if (typeof b.text === 'string') return b.text
  if (typeof b.toolUse === 'object') return `use ${b.toolUse.toolUseId}`
  if (typeof b.toolResult === 'object') return `result ${b.toolResult.toolUseId} ${b.toolResult.status}`
  return '?'
}

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

async function fresh(): Promise<LedgerStore> {
  return backend.open()
}

describe('fork', () => {
  it('at the newest message shows exactly the parent window, pins and summary included', async () => {
    const store = await fresh()
    const m = backend.manager(store, { sessionId: 's', windowSize: 6 })
    await m.append([0, 1, 2, 3].flatMap(turn))
    await m.pin({ seq: 0 }, { reason: 'the first question' })
    await m.summarizeExcess(recordingSummarizer().summarize)
    await m.applyWindow()
    const before = await store.windowEntries('s')
    expect(before.some((e) => e.seq === undefined)).toBe(true)
    const info = await store.fork('s', {
      atSeq: 15,
      newSessionId: 'b',
      actor: 'agent',
      reason: 'try another way',
    })
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
    expect(await store.windowEntries('b')).toStrictEqual(before)
    expect(await store.window('b')).toStrictEqual(await store.window('s'))
    const [sFacts, bFacts] = [await store.session('s'), await store.session('b')]
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
    expect(await store.history('b', { limit: 100 })).toStrictEqual(
      (await store.history('s', { limit: 100 })).map((e) => ({ ...e, sessionId: 'b' })),
    )
    const inherited = await store.summaries('b')
    expect(inherited).toHaveLength(1)
    expect(inherited[0]).toMatchObject({ inherited: true, current: true, id: sFacts?.summaryId })
    expect((await store.pinnedMessages({ sessionId: 'b' })).map((p) => [p.seq, p.reason])).toStrictEqual([
      [0, 'the first question'],
    ])
    await assertWindowRulesThroughApi(store, 'b', LIMITS)
  })

  it('of a fork reads each ancestor up to its fork point and continues the seqs', async () => {
    const store = await fresh()
    await store.append('s', [0, 1, 2].flatMap(turn))
    await store.fork('s', { atSeq: 7, newSessionId: 'b' })
    await store.append('b', turn('b1'))
    await store.fork('b', { atSeq: 9, newSessionId: 'c' })
    await store.append('c', turn('c1'))
    await store.append('b', turn('b2'))
    await store.append('s', turn(3))
    expect(await texts(store, 'c')).toStrictEqual([
      ...[0, 1].flatMap(turn).map((m) => short(m.content[0])),
      'question b1',
      'use cb1',
      // The call the fork point left open: the branch's next message brought its repair row.
      'result cb1 error',
      ...turn('c1').map((m) => short(m.content[0])),
    ])
    expect((await store.history('c', { limit: 100 })).map((e) => e.seq)).toStrictEqual([...Array(15).keys()])
    expect(await store.messageCount('c')).toBe(15)
    expect((await store.message('c', { seq: 3 })).message).toStrictEqual(
      (await store.message('s', { seq: 3 })).message,
    )
    const tracked = (await store.message('b', { seq: 8 })).trackingId
    expect((await store.message('c', { trackingId: tracked })).seq).toBe(8)
    expect(
      (await store.branches('c')).map((b) => [b.sessionId, b.parentId, b.forkSeq, b.depth, b.ownMessages]),
    ).toStrictEqual([
      ['s', null, null, 0, 16],
      ['b', 's', 7, 1, 8],
      ['c', 'b', 9, 2, 5],
    ])
    for (const id of ['s', 'b', 'c']) {
      await store.applyWindow(id, LIMITS)
      await assertWindowRulesThroughApi(store, id, LIMITS)
    }
  })

  it('lets a branch answer a call still open at its fork point with its own result', async () => {
    const store = await fresh()
    await store.append('s', turn(0).slice(0, 2))
    await store.fork('s', { atSeq: 1, newSessionId: 'b' })
    await store.append('s', turn(0).slice(2))
    await store.append('b', {
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'c0', status: 'error', content: [{ text: 'not in this branch' }] } },
      ],
    })
    expect(await texts(store, 'b')).toStrictEqual(['question 0', 'use c0', 'result c0 error'])
    expect(await texts(store, 's')).toStrictEqual(['question 0', 'use c0', 'result c0 success', 'answer 0'])
    expect((await store.window('b')).at(-1)?.content[0]).toMatchObject({ toolResult: { status: 'error' } })
  })

  it('earlier than the newest message keeps the newest turn it inherits and a valid window', async () => {
    const store = await fresh()
    await store.append('s', [0, 1, 2, 3, 4].flatMap(turn))
    await store.applyWindow('s', LIMITS)
    expect((await store.windowEntries('s')).map((e) => e.seq)).toStrictEqual([16, 17, 18, 19])
    await store.fork('s', { atSeq: 9, newSessionId: 'b' })
    // The parent's window held nothing up to seq 9: the branch's window is its newest turn, from seq 8.
    expect((await store.windowEntries('b')).map((e) => e.seq)).toStrictEqual([8, 9])
    await assertWindowRulesThroughApi(store, 'b', LIMITS)
    await store.append('b', turn(2).slice(2))
    expect((await store.windowEntries('b')).map((e) => e.seq)).toStrictEqual([8, 9, 10, 11])
  })
})

describe('isolation', () => {
  it('keeps what the parent does after the fork out of the branch, and the reverse', async () => {
    const store = await fresh()
    const s = backend.manager(store, { sessionId: 's', windowSize: 6 })
    await s.append([0, 1, 2].flatMap(turn))
    await s.applyWindow()
    await store.fork('s', { atSeq: 11, newSessionId: 'b' })
    const b = backend.manager(store, { sessionId: 'b', windowSize: 6 })
    const bHistory = await store.history('b', { limit: 100 })
    const bWindow = await store.windowEntries('b')
    // The parent pins, edits, truncates, summarizes, appends and cuts.
    await s.pin({ seq: 6 }, { reason: 'parent' })
    await s.edit({ seq: 7 }, { role: 'assistant', content: [{ text: 'edited in s' }] })
    const call = (await store.message('s', { seq: 9 })).message
    await s.setWindowContent(
      { seq: 9 },
      { ...call, content: [{ toolUse: { name: 'look', toolUseId: 'c2', input: {} } }] },
    )
    await s.append([3, 4].flatMap(turn))
    await s.summarizeExcess(recordingSummarizer().summarize)
    await s.applyWindow()
    expect(await store.history('b', { limit: 100 })).toStrictEqual(bHistory)
    expect(await store.windowEntries('b')).toStrictEqual(bWindow)
    expect(await store.pinnedMessages({ sessionId: 'b' })).toStrictEqual([])
    expect(await store.pinEvents('b')).toStrictEqual([])
    expect(await store.edits('b')).toStrictEqual([])
    expect(await store.summaries('b')).toStrictEqual([])
    // The branch does the same; the parent does not see it.
    const sHistory = await store.history('s', { limit: 100 })
    const sWindow = await store.windowEntries('s')
    const sPins = await store.pinEvents('s')
    await b.pin({ seq: 4 }, { reason: 'branch' })
    await b.edit({ seq: 3 }, { role: 'assistant', content: [{ text: 'edited in b' }] })
    await b.append(turn('b'))
    await b.summarizeExcess(recordingSummarizer().summarize)
    await b.applyWindow()
    expect(await store.history('s', { limit: 100 })).toStrictEqual(sHistory)
    expect(await store.windowEntries('s')).toStrictEqual(sWindow)
    expect(await store.pinEvents('s')).toStrictEqual(sPins)
    expect((await store.pinnedMessages({ sessionId: 'b' })).map((p) => [p.seq, p.reason])).toStrictEqual([
      [4, 'branch'],
    ])
    expect((await store.edits('b')).map((e) => [e.seq, e.kind])).toStrictEqual([[3, 'edit']])
    expect((await store.message('b', { seq: 3 })).windowMessage?.content[0]).toStrictEqual({
      text: 'edited in b',
    })
    expect((await store.message('s', { seq: 3 })).windowMessage).toBeUndefined()
    expect((await store.window('b')).some((m) => JSON.stringify(m).includes('edited in s'))).toBe(false)
    await assertWindowRulesThroughApi(store, 'b', { first: 0, last: 0 })
    await assertWindowRulesThroughApi(store, 's', { first: 0, last: 0 })
  })

  it('shows a branch the pins and edits its parent made before the fork, and a redaction everywhere', async () => {
    const store = await fresh()
    await store.append('s', [0, 1].flatMap(turn))
    await store.pin('s', { seq: 0 }, { reason: 'before' })
    await store.editMessage('s', { seq: 3 }, { role: 'assistant', content: [{ text: 'edited before' }] })
    await store.fork('s', { atSeq: 7, newSessionId: 'b' })
    await store.fork('s', { atSeq: 7, newSessionId: 'c' })
    expect((await store.pinEvents('b')).map((e) => [e.seq, e.action, e.reason])).toStrictEqual([
      [0, 'pin', 'before'],
    ])
    expect((await store.edits('b')).map((e) => [e.seq, e.kind])).toStrictEqual([[3, 'edit']])
    await store.redactMessage('b', { seq: 4 }, { reason: 'secret' })
    for (const id of ['s', 'b', 'c'])
      expect(JSON.stringify((await store.message(id, { seq: 4 })).message)).not.toContain('question 1')
    expect((await store.edits('b')).map((e) => e.kind)).toStrictEqual(['edit', 'redact'])
    expect((await store.edits('s')).map((e) => e.kind)).toStrictEqual(['edit'])
  })
})

describe('summaries and edits in a branch', () => {
  it('regenerates or drops an inherited summary in the branch only', async () => {
    const store = await fresh()
    const s = backend.manager(store, { sessionId: 's', windowSize: 6 })
    await s.append([0, 1, 2, 3].flatMap(turn))
    const made = await s.summarizeExcess(recordingSummarizer().summarize)
    const id = made.summary?.id as number
    await store.fork('s', { atSeq: 15, newSessionId: 'b' })
    const b = backend.manager(store, { sessionId: 'b', windowSize: 6 })
    expect((await store.session('b'))?.summaryId).toBe(id)
    expect(await store.summary('b', id)).toMatchObject({ id, inherited: true, current: true })
    // explainWindow is SQLite's only (PostgreSQL has no such call yet).
    const core = coreStoreOf(store)
    if ('explainWindow' in core)
      expect(core.explainWindow('b')?.summary).toMatchObject({ id, inherited: true, current: true })
    const again = await b.resummarize(id, recordingSummarizer().summarize)
    expect(again).toMatchObject({ regenerates: id, inherited: false, current: true })
    // The parent still shows its summary, unended; the branch lists it ended by its own regeneration.
    expect(await store.summary('s', id)).toMatchObject({ current: true, endedAt: undefined })
    expect(
      (await store.summaries('b')).map((x) => [x.id, x.inherited, x.current, x.endReason]),
    ).toStrictEqual([
      [again.id, false, true, undefined],
      [id, true, false, 'regenerated'],
    ])
    // Dropping the branch's summary brings the inherited messages back into its window only.
    const sWindow = await store.windowEntries('s')
    await b.dropSummary(again.id)
    expect(await store.windowEntries('s')).toStrictEqual(sWindow)
    expect((await store.windowEntries('b')).some((e) => e.seq === undefined)).toBe(false)
    await assertWindowRulesThroughApi(store, 'b', { first: 0, last: 0 })
    await assertWindowRulesThroughApi(store, 's', { first: 0, last: 0 })
  })

  it('keeps the window form a branch saw of an evicted row when its owner edits the row later', async () => {
    const store = await fresh()
    await store.append('s', [0, 1, 2].flatMap(turn))
    await store.applyWindow('s', LIMITS)
    await store.fork('s', { atSeq: 11, newSessionId: 'b' })
    await store.fork('b', { atSeq: 11, newSessionId: 'c' })
    // Seq 3 is out of every window: no branch row holds it; its owner edits it now.
    expect((await store.windowEntries('c')).map((e) => e.seq)).toStrictEqual([8, 9, 10, 11])
    await store.editMessage('s', { seq: 3 }, { role: 'assistant', content: [{ text: 'edited later in s' }] })
    expect((await store.message('s', { seq: 3 })).windowMessage?.content[0]).toStrictEqual({
      text: 'edited later in s',
    })
    for (const id of ['b', 'c']) {
      expect((await store.message(id, { seq: 3 })).windowMessage).toBeUndefined()
      expect(await store.edits(id)).toStrictEqual([])
    }
    // A pin brings it back into the branch as the branch saw it.
    await store.pin('c', { seq: 3 })
    expect((await store.window('c')).some((m) => JSON.stringify(m).includes('edited later'))).toBe(false)
  })
})
