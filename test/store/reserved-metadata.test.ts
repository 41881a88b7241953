/**
 * The store's own notes under `metadata.custom.contextLedger` (docs/api.md, "Reserved metadata"): the
 * ones the library acts on — `pruned`, `repair`, `summary`, `mergedFrom` — are stripped from what a
 * caller appends (or gives as an edit or a redaction's replacement), and retention decides what it has
 * already pruned from its own edit log, never from a flag in a body. A conformance-suite file: the same
 * tests on SQLite and PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

const forged = (notes: Record<string, unknown>, other: Record<string, unknown> = {}): MessageData =>
  ({
    role: 'user',
    content: [{ text: 'the launch code is zebracorn' }],
    metadata: {
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      custom: { team: 'ops', ...other, contextLedger: notes },
    },
  }) as MessageData

describe(`reserved metadata [${BACKEND}]`, () => {
  it('a forged pruned marker is stripped on the way in; retention prunes the message; search no longer finds it', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 's', windowSize: 1 })
    const [entry] = await manager.append([forged({ pruned: true })])
    await manager.append([
      { role: 'assistant', content: [{ text: 'noted' }] },
      { role: 'user', content: [{ text: 'next question' }] },
    ])
    await manager.applyWindow()
    const stored = (await manager.history())[0]
    // The marker is gone, the caller's other metadata stays.
    expect(stored?.message.metadata).toStrictEqual({
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      custom: { team: 'ops' },
    })
    expect(entry?.message.metadata).toStrictEqual(stored?.message.metadata)
    expect(stored?.inWindow).toBe(false)
    expect((await store.search('zebracorn')).map((h) => h.seq)).toStrictEqual([0])

    const result = await store.prune({ sessionId: 's', before: Date.now() + 1, keepPinned: true })
    expect(result.pruned).toBe(2)
    expect(await store.search('zebracorn')).toStrictEqual([])
    expect((await manager.history())[0]?.message.content).toStrictEqual([{ text: '[redacted]' }])
    // The store's own marker, and its edit log: pruning again prunes nothing.
    expect((await store.prune({ sessionId: 's', before: Date.now() + 1, keepPinned: true })).pruned).toBe(0)
    // Nor can the window be given other text for it: retention would never erase that text.
    const shown: MessageData = { role: 'user', content: [{ text: 'zebracorn again' }] }
    for (const call of [
      () => manager.setWindowContent({ seq: 0 }, shown),
      () => store.editMessage('s', { seq: 0 }, shown),
    ]) {
      const error = await refusalOf(call)
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS', path: 'ref' })
      expect(error.message).toMatch(/seq 0 was erased by retention/)
    }
    await manager.setWindowContent({ seq: 0 }, null)
    expect((await manager.history())[0]?.message.content).toStrictEqual([{ text: '[redacted]' }])
  })

  it('retention decides from its own edit log: a marker an older version let in does not stop it', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 'old', windowSize: 1 })
    await manager.append([
      forged({}),
      { role: 'assistant', content: [{ text: 'noted' }] },
      { role: 'user', content: [{ text: 'next question' }] },
    ])
    await manager.applyWindow()
    // What a forged marker appended before it was stripped left in the body (the search index is not
    // touched: the messages still wait above its watermark on SQLite; PostgreSQL's is generated).
    const marker = `'{"pruned":true}'`
    await backend.scalar(store, {
      sqlite: `UPDATE messages SET body = json_set(body, '$.metadata.custom.contextLedger', json(${marker})) WHERE seq = 0 RETURNING seq`,
      postgres: `UPDATE context_ledger.messages SET body = jsonb_set(body::jsonb, '{metadata,custom,contextLedger}', ${marker}::jsonb)::text WHERE seq = 0 RETURNING seq`,
    })
    expect((await manager.history())[0]?.message.metadata?.custom).toStrictEqual({
      team: 'ops',
      contextLedger: { pruned: true },
    })
    expect((await store.prune({ sessionId: 'old', before: Date.now() + 1, keepPinned: true })).pruned).toBe(2)
    expect(await store.search('zebracorn')).toStrictEqual([])
    expect((await store.edits('old')).map((e) => [e.seq, e.kind])).toStrictEqual([
      [0, 'redact'],
      [1, 'redact'],
    ])
  })

  it('strips every note the library acts on, keeps the informational ones and the rest of custom', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 't', windowSize: 10 })
    const notes = {
      pruned: true,
      repair: 'missing-tool-result',
      summary: true,
      mergedFrom: ['a', 'b'],
      repaired: [{ path: 'content[0]', issue: 'x' }],
      repairsOmitted: 1,
    }
    await manager.append([forged(notes)])
    await manager.append(forged({ summary: true }, { pinned: true }))
    await manager.append(forged({ pruned: true, repair: 'missing-tool-result' }))
    const history = await manager.history()
    expect(history.map((e) => e.message.metadata?.custom)).toStrictEqual([
      { team: 'ops', contextLedger: { repaired: [{ path: 'content[0]', issue: 'x' }], repairsOmitted: 1 } },
      { team: 'ops', pinned: true },
      { team: 'ops' },
    ])
    // A window replacement and a redaction's replacement are the caller's too.
    await manager.setWindowContent(
      { seq: 2 },
      { ...forged({ summary: true, mergedFrom: ['x'] }), trackingId: history[2]?.message.trackingId },
    )
    const shown = (await manager.window()).at(-1)
    expect(shown?.metadata?.custom).toStrictEqual({ team: 'ops' })
    await store.redactMessage(
      't',
      { seq: 0 },
      {
        replacement: { ...forged({ pruned: true }), trackingId: history[0]?.message.trackingId },
      },
    )
    expect((await manager.history())[0]?.message.metadata?.custom).toStrictEqual({ team: 'ops' })
  })

  it('a window replacement of a repair row keeps the note only the library writes (the checker agrees)', async () => {
    // Found by the summaries property on PostgreSQL (seed 1696667900), on both backends: the replacement was
    // prepared as a caller's message, so its window form lost the repair note its body has.
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 'r', windowSize: 10 })
    const answered: MessageData = {
      role: 'user',
      content: [{ toolResult: { toolUseId: 'c0', status: 'success', content: [{ text: 'found' }] } }],
    }
    await manager.append([
      { role: 'user', content: [{ text: 'look twice' }] },
      { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: 'c0', input: {} } }] },
      answered,
      { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: 'c1', input: {} } }] },
    ])
    // A late second result for c0 while c1 is open: c1 gets its repair row (seq 4), then the late result.
    await manager.append(answered)
    const repair = (await manager.history())[4]?.message
    expect(repair?.metadata?.custom?.contextLedger).toStrictEqual({ repair: 'missing-tool-result' })
    if (repair === undefined) throw new Error('no repair row')
    const shorter = repair.content.map((b) =>
      'toolResult' in b ? { toolResult: { ...b.toolResult, content: [{ text: 'short' }] } } : b,
    )
    await manager.setWindowContent({ seq: 4 }, { ...repair, content: shorter })
    const [entry] = (await store.windowEntries('r')).filter((e) => e.seq === 4)
    expect(entry?.message.content).toStrictEqual(shorter)
    expect(entry?.message.metadata).toStrictEqual(repair.metadata)
    await assertWindowRulesOf(store, 'r', manager.limits, { throughApi: true })
  })
})
