/**
 * A session of the `claude-agent` format on either backend (a conformance-suite file): the CLI's recorded
 * transcripts round-trip exactly (history bodies deep-equal the appended entries, no repair row);
 * bad entries are refused at their field with nothing written; an entry's uuid makes a re-sent batch
 * write nothing and other content under it a `DUPLICATE_MESSAGE` at `[i].uuid`, while entries without
 * uuid are appended every time; a result for a call the session never made is stored as a late result;
 * calls left open stay open (the CLI answers its interrupted calls); redaction and retention keep the
 * entry's shape, pinned entries survive retention; a summary is an entry of the format. Each session
 * passes the checker `context-ledger check` runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { appendInChunks } from '../helpers/chunked.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { EntryMaker, FIXTURES, asMessages, fixture, type Entry } from '../helpers/claude-format-entries.js'

const backend = makeBackend()
beforeAll(async () => {
  await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const CLAUDE = { format: 'claude-agent' } as const

async function bodies(store: LedgerStore, sessionId: string): Promise<unknown[]> {
  return (await store.history(sessionId, { limit: 10_000 })).map((e) => e.message)
}

const check = (store: LedgerStore, sessionId: string) => assertWindowRulesOf(store, sessionId)

describe(`a session of the 'claude-agent' format [${BACKEND}]`, () => {
  it.each(FIXTURES)('round-trips the recorded transcript %s exactly, whole or in batches', async (name) => {
    const store = await backend.open()
    const entries = fixture(name)
    const written = await store.append('whole', asMessages(entries), CLAUDE)
    expect(written.map((e) => e.repair)).toStrictEqual(entries.map(() => undefined))
    // An entry's uuid is its trackingId; one without gets one the ledger minted.
    expect(written.map((e) => (e.trackingId === entries[e.seq]?.uuid ? 'own' : 'minted'))).toStrictEqual(
      entries.map((e) => (e.uuid === undefined ? 'minted' : 'own')),
    )
    expect(await bodies(store, 'whole')).toStrictEqual(entries)
    const m = backend.manager(store, { sessionId: 'batches', format: 'claude-agent' })
    await appendInChunks(m, asMessages(entries), [2, 1, 7, 3, 5, 1, 4])
    expect(await bodies(store, 'batches')).toStrictEqual(entries)
    expect((await store.session('whole'))?.format).toBe('claude-agent')
    // The window opens at the first prompt: the queue operations before it cannot open one.
    expect(await store.window('whole')).toStrictEqual(entries.slice(2))
    const reopened = await backend.reopen(store)
    expect(await bodies(reopened, 'whole')).toStrictEqual(entries)
    const hits = await reopened.search('answer', { sessionId: 'whole' })
    expect(hits.map((h) => h.seq).sort((a, b) => a - b)).toStrictEqual(
      entries.flatMap((e, i) => (JSON.stringify(e.message ?? '').includes('The answer is') ? [i] : [])),
    )
    await check(store, 'whole')
    await check(store, 'batches')
  })

  it('refuses an entry without type, a bad uuid and the ledger notes key at the field, writing nothing', async () => {
    const store = await backend.open()
    const m = new EntryMaker()
    await store.append('s', asMessages([m.prompt('hi')]), CLAUDE)
    const before = await backend.checksum(store)
    const cases: [unknown, string][] = [
      [[m.text('fine'), { uuid: 'u-1', message: {} }], '[1].type'],
      [['user'], '[0].type'],
      [[m.text('fine'), { ...m.text('x'), uuid: '' }], '[1].uuid'],
      [[{ ...m.text('x'), uuid: 42 }], '[0].uuid'],
      [[m.text('fine'), { ...m.text('x'), contextLedger: { summary: true } }], '[1].contextLedger'],
    ]
    for (const [batch, path] of cases) {
      const refused = await refusalOf(() => store.append('s', batch))
      expect([refused.code, refused.path]).toStrictEqual(['INVALID_MESSAGE', path])
    }
    const single = await refusalOf(() => store.append('s', { type: 'user', uuid: '' }))
    expect(single.path).toBe('uuid')
    expect(await backend.checksum(store)).toBe(before)
  })

  it('writes nothing for a re-sent batch, appends entries without uuid again, refuses other content under a uuid', async () => {
    const store = await backend.open()
    const entries = fixture('format-tool-call')
    await store.append('s', asMessages(entries), CLAUDE)
    const withUuid = entries.filter((e) => e.uuid !== undefined)
    const before = await backend.checksum(store)
    await store.append('s', asMessages(withUuid))
    // The same entries with their keys in another order are the same entries.
    await store.append('s', asMessages(withUuid.map((e) => Object.fromEntries(Object.entries(e).reverse()))))
    expect(await backend.checksum(store)).toBe(before)
    // Re-sent whole: the entries without uuid (queue operations, costs) are appended again, as the SDK asks.
    await store.append('s', asMessages(entries))
    const without = entries.filter((e) => e.uuid === undefined)
    expect(await bodies(store, 's')).toStrictEqual([...entries, ...without])
    const after = await backend.checksum(store)
    const changed = { ...(withUuid[3] as Entry), timestamp: '2026-11-29T00:00:00.000Z' }
    const refused = await refusalOf(() =>
      store.append('s', asMessages([new EntryMaker('new').prompt('new'), withUuid[0], changed])),
    )
    expect([refused.code, refused.path]).toStrictEqual(['DUPLICATE_MESSAGE', '[2].uuid'])
    expect(await backend.checksum(store)).toBe(after)
  })

  it('stores a result for a call never made as a late result, shown as text', async () => {
    const store = await backend.open()
    const m = new EntryMaker()
    const entries = [
      m.prompt('q'),
      m.call('c1'),
      m.result('c1', 'one'),
      m.result('ghost', 'boo'),
      m.result('c1', 'again'),
    ]
    const written = await store.append('s', asMessages(entries), CLAUDE)
    expect(written.map((e) => e.late)).toStrictEqual([false, false, false, true, true])
    expect(JSON.stringify(written[3]?.windowMessage)).toContain('"ghost\\", which this session never made')
    expect(JSON.stringify(written[4]?.windowMessage)).toContain(
      'The call \\"c1\\" to mcp__calc__add returned after',
    )
    expect(await bodies(store, 's')).toStrictEqual(entries)
    // One result of a batch arriving alone later, for a call never made: stored, not refused.
    await store.append('s', asMessages([m.result('ghost-2', 'late')]))
    expect(await bodies(store, 's')).toHaveLength(6)
    await check(store, 's')
  })

  it('leaves calls nobody answered open, without a repair row', async () => {
    const store = await backend.open()
    const m = new EntryMaker()
    const entries = [
      m.prompt('q'),
      m.call('c1'),
      m.call('c2'),
      m.attachment('between'),
      m.result('c1', 'one'),
      m.prompt('never mind'),
      m.text('ok'),
    ]
    await store.append('s', asMessages(entries.slice(0, 3)), CLAUDE)
    for (const e of entries.slice(3)) await store.append('s', asMessages([e]))
    expect(await bodies(store, 's')).toStrictEqual(entries)
    // c2's answer, much later, still answers it.
    const late = await store.append('s', asMessages([m.result('c2', 'two')]))
    expect(late[0]?.late).toBe(false)
    await check(store, 's')
  })

  it('redacts and prunes entries in their own shape; a pinned entry survives retention', async () => {
    const store = await backend.open()
    const entries = fixture('format-tool-call-resume-compact')
    await store.append('s', asMessages(entries), CLAUDE)
    await store.pin('s', { seq: 21 }, { reason: 'the second question' })
    await backend.manager(store, { sessionId: 's', windowSize: 6 }).applyWindow()
    const out = (await store.history('s', { limit: 100 })).filter((e) => !e.inWindow && !e.pinned)
    expect(out.length).toBeGreaterThan(10)
    const first = await store.prune({ sessionId: 's', before: Date.now() + 60_000, keepPinned: true })
    expect(first.pruned).toBe(out.length)
    const history = await store.history('s', { limit: 100 })
    for (const e of history) {
      const body = e.message as unknown as Entry
      const original = entries[e.seq] as Entry
      for (const key of ['type', 'uuid', 'parentUuid', 'timestamp', 'sessionId'])
        expect(body[key]).toStrictEqual(original[key])
      if (out.some((o) => o.seq === e.seq)) expect(body.contextLedger).toStrictEqual({ pruned: true })
      else expect(body).toStrictEqual(original)
    }
    expect(history[21]?.message).toStrictEqual(entries[21])
    expect((history[12]?.message as unknown as Entry).message).toMatchObject({
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__calc__add', input: {} }],
    })
    expect(JSON.stringify(history[13]?.message)).not.toContain('"42"')
    expect((await store.search('add tool', { sessionId: 's' })).map((h) => h.seq)).toStrictEqual([])
    expect((await store.search('1+1', { sessionId: 's' })).map((h) => h.seq)).toStrictEqual([21])
    expect(
      (await store.prune({ sessionId: 's', before: Date.now() + 60_000, keepPinned: true })).pruned,
    ).toBe(0)
    // A redaction keeps the shape too, without the pruned note.
    const last = history.at(-1)?.seq ?? 0
    await store.redactMessage('s', { seq: last })
    const redacted = (await store.message('s', { seq: last })).message as unknown as Entry
    expect(redacted.uuid).toBe(entries[last]?.uuid)
    expect(redacted.contextLedger).toBeUndefined()
    await check(store, 's')
    // The original re-sent under its uuid is other content than the erased body: refused, store unchanged.
    const before = await backend.checksum(store)
    const refused = await refusalOf(() => store.append('s', asMessages([entries[13]])))
    expect(refused.code).toBe('DUPLICATE_MESSAGE')
    expect(await backend.checksum(store)).toBe(before)
  })

  it('writes a summary as a user entry of the format, marked, that search finds', async () => {
    const store = await backend.open()
    const m = backend.manager(store, { sessionId: 's', windowSize: 4, format: 'claude-agent' })
    await m.append(asMessages(fixture('format-tool-call-resume-compact')))
    let given: readonly unknown[] = []
    const { summary } = await m.summarize(
      (input) => {
        given = input
        return 'Earlier: forty and two made zeppelins.'
      },
      { summaryRatio: 0.5, preserveRecentMessages: 4 },
    )
    expect(summary).toBeDefined()
    expect(given.at(-1)).toMatchObject({ type: 'user', message: { role: 'user' } })
    const record = await store.summary('s', summary?.id ?? -1)
    expect(record.message).toStrictEqual({
      type: 'user',
      message: { role: 'user', content: 'Earlier: forty and two made zeppelins.' },
      contextLedger: { summary: true },
    })
    expect((await m.window())[0]).toStrictEqual(record.message)
    const hits = await store.search('zeppelins', { sessionId: 's', summaries: true })
    expect(hits.map((h) => h.kind)).toContain('summary')
    await check(store, 's')
  })
})
