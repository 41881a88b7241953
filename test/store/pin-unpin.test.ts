/**
 * The store's own pin() and unpin(): what a caller without a manager uses. A pin brings an evicted
 * message back with its tool partners, by the protected ranges it is given or, without limits, by those
 * the session's window was last applied with; an unpin lets it go at the next window application. Both
 * log who and why, and refuse bad arguments with `INVALID_OPTIONS` naming them.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { refusalOf } from '../helpers/refusal.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

// The conformance suite: the same tests on the backend the project selects (test/helpers/backend.ts).
const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** Three turns, each a question, a tool call, its result and a reply: seqs 4t … 4t + 3. */
function conversation(): MessageData[] {
  return [0, 1, 2].flatMap((t): MessageData[] => [
    { role: 'user', content: [{ text: `question ${t}` }] },
    { role: 'assistant', content: [{ toolUse: { name: 'look', toolUseId: `c${t}`, input: { t } } }] },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `c${t}`, status: 'success', content: [{ text: `found ${t}` }] } }],
    },
    { role: 'assistant', content: [{ text: `answer ${t}` }] },
  ])
}

/** A store whose session `s` holds the conversation, applied with `protectedMessages.first = first`. */
async function applied(first: number): Promise<{ store: LedgerStore; manager: LedgerManager }> {
  const store = await backend.open()
  const manager = backend.manager(store, { sessionId: 's', windowSize: 4, protectedMessages: { first } })
  await manager.append(conversation())
  await manager.applyWindow()
  return { store, manager }
}

const inWindow = async (m: LedgerManager): Promise<number[]> =>
  (await m.history()).filter((e) => e.inWindow).map((e) => e.seq)

describe(`store.pin and store.unpin [${BACKEND}]`, () => {
  it('bring an evicted tool call back with its result and a lead, log who and why, and let it go again', async () => {
    const { store, manager } = await applied(0)
    expect(await inWindow(manager)).toStrictEqual([8, 9, 10, 11])

    expect(await store.pin('s', { seq: 5 }, { actor: 'agent', reason: 'the lookup' })).toStrictEqual({
      seq: 5,
      trackingId: expect.any(String) as string,
      changed: true,
      restored: 3,
    })
    // The call, its result, and the question before them as the window's lead.
    expect(await inWindow(manager)).toStrictEqual([4, 5, 6, 8, 9, 10, 11])
    expect(await store.pin('s', { seq: 5 })).toMatchObject({ changed: false, restored: 0 })

    expect(await store.unpin('s', { seq: 5 }, { actor: 'user', reason: 'done' })).toMatchObject({
      changed: true,
      restored: 0,
    })
    await manager.applyWindow()
    expect(await inWindow(manager)).toStrictEqual([8, 9, 10, 11])
    expect((await store.pinEvents('s')).map((e) => [e.seq, e.action, e.actor, e.reason])).toStrictEqual([
      [5, 'pin', 'agent', 'the lookup'],
      [5, 'unpin', 'user', 'done'],
    ])
  })

  it('without limits, protect by the ranges the window was last applied with: the same window as the manager pin', async () => {
    const byManager = await applied(2)
    const byStore = await applied(2)
    await byManager.manager.pin({ seq: 5 })
    await byStore.store.pin('s', { seq: 5 })
    expect(await inWindow(byStore.manager)).toStrictEqual(await inWindow(byManager.manager))
    // The kept rows' marks stay derived for the manager's range, so its next plan need not redo them.
    const keptFirst = (t: { store: LedgerStore }): Promise<unknown> =>
      backend.scalar(t.store, {
        sqlite: 'SELECT kept_first FROM sessions',
        postgres: 'SELECT kept_first FROM context_ledger.sessions',
      })
    expect(await keptFirst(byStore)).toBe(2)
    expect(await keptFirst(byStore)).toBe(await keptFirst(byManager))
    await byManager.manager.append({ role: 'user', content: [{ text: 'next' }] })
    await byStore.manager.append({ role: 'user', content: [{ text: 'next' }] })
    expect(await byStore.manager.applyWindow()).toStrictEqual(await byManager.manager.applyWindow())
    expect(await inWindow(byStore.manager)).toStrictEqual(await inWindow(byManager.manager))
  })

  it.each([
    [
      'pin limits {}',
      (store: LedgerStore) => store.pin('s', { seq: 1 }, {}, {} as never),
      'limits.windowSize',
    ],
    ['pin limits null', (store: LedgerStore) => store.pin('s', { seq: 1 }, {}, null as never), 'limits'],
    ["pin actor ''", (store: LedgerStore) => store.pin('s', { seq: 1 }, { actor: '' }), 'attribution.actor'],
    [
      'pin actor of 257 characters',
      (store: LedgerStore) => store.pin('s', { seq: 1 }, { actor: 'a'.repeat(257) }),
      'attribution.actor',
    ],
    [
      'pin reason of 257 characters',
      (store: LedgerStore) => store.pin('s', { seq: 1 }, { reason: 'r'.repeat(257) }),
      'attribution.reason',
    ],
    [
      "pin reason ''",
      (store: LedgerStore) => store.pin('s', { seq: 1 }, { reason: '' }),
      'attribution.reason',
    ],
    [
      'unpin reason of 5,000,000 characters',
      (store: LedgerStore) => store.unpin('s', { seq: 1 }, { reason: 'r'.repeat(5_000_000) }),
      'attribution.reason',
    ],
    ['unpin ref {}', (store: LedgerStore) => store.unpin('s', {} as never), 'ref'],
    ['unpin session 7', (store: LedgerStore) => store.unpin(7 as never, { seq: 1 }), 'sessionId'],
  ])('refuse %s with INVALID_OPTIONS naming it', async (_name, call, path) => {
    const { store } = await applied(0)
    const error = await refusalOf(() => call(store))
    expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', path])
  })

  it('accept a reason of 256 characters, and log it whole', async () => {
    const { store } = await applied(0)
    await store.pin('s', { seq: 9 }, { actor: 'a'.repeat(256), reason: 'r'.repeat(256) })
    expect((await store.pinEvents('s')).map((e) => [e.actor.length, e.reason?.length])).toStrictEqual([
      [256, 256],
    ])
  })

  it('refuse a pin no window can show — a message before the first plain user message — and log nothing', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 'g', windowSize: 4, protectedMessages: { first: 1 } })
    const greeting: MessageData = { role: 'assistant', content: [{ text: 'Hello! How can I help?' }] }
    await manager.append([greeting, { role: 'assistant', content: [{ text: 'Ask me anything.' }] }])
    // No plain user message yet: nothing can open a window, so nothing can be pinned.
    const early = await refusalOf(() => store.pin('g', { seq: 1 }))
    expect([early.code, early.path]).toStrictEqual(['INVALID_OPTIONS', 'ref'])
    await manager.append(conversation())
    for (const seq of [0, 1]) {
      const error = await refusalOf(() => store.pin('g', { seq }, { reason: 'the greeting' }))
      expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', 'ref'])
      expect(error.message).toContain('first plain user message')
      expect((await refusalOf(() => manager.pin({ seq }))).code).toBe('INVALID_OPTIONS')
    }
    expect(await store.pinEvents('g')).toStrictEqual([])
    expect((await manager.history()).filter((e) => e.pinned)).toStrictEqual([])
    // A message after it can be pinned; when the window later starts past it, it stays with a lead.
    expect(await store.pin('g', { seq: 5 })).toMatchObject({ changed: true })
    await manager.applyWindow()
    expect(await inWindow(manager)).toStrictEqual([2, 5, 10, 11, 12, 13])
    await assertWindowRulesOf(store, 'g', { first: 1 })
  })

  it('check reports a pinned message no window shows (a greeting an older version let a pin through on)', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 'old', windowSize: 4 })
    await manager.append([{ role: 'assistant', content: [{ text: 'Hello!' }] }, ...conversation()])
    await assertWindowRulesOf(store, 'old')
    await backend.scalar(store, {
      sqlite: 'UPDATE messages SET pinned = 1 WHERE seq = 0 RETURNING pinned',
      postgres: 'UPDATE context_ledger.messages SET pinned = true WHERE seq = 0 RETURNING pinned',
    })
    const logged = "SELECT session, 0, 'pin', 'old version', 1 FROM messages WHERE seq = 0 RETURNING seq"
    await backend.scalar(store, {
      sqlite: `INSERT INTO pin_events (session, seq, action, actor, at) ${logged}`,
      postgres: `INSERT INTO context_ledger.pin_events (session, seq, action, actor, at) ${logged.replace('messages', 'context_ledger.messages')}`,
    })
    await expect(assertWindowRulesOf(store, 'old')).rejects.toThrow(
      /pinned in window.*pinned seqs 0 are not in the window; 0 comes before the session's first plain user message/,
    )
    // Unpinning it is what check advises, and it is allowed.
    expect(await store.unpin('old', { seq: 0 })).toMatchObject({ changed: true })
    await assertWindowRulesOf(store, 'old')
  })

  it('refuse an append that carries the pin flag on a message no window can show, and write nothing', async () => {
    const store = await backend.open()
    const manager = backend.manager(store, { sessionId: 'h', windowSize: 4 })
    const pinnedGreeting: MessageData = {
      role: 'assistant',
      content: [{ text: 'Hello!' }],
      metadata: { custom: { pinned: true } },
    }
    const alone = await refusalOf(() => manager.append(pinnedGreeting))
    expect([alone.code, alone.path]).toStrictEqual(['INVALID_MESSAGE', 'metadata.custom.pinned'])
    const batch = await refusalOf(() =>
      manager.append([{ role: 'assistant', content: [{ text: 'Hi' }] }, pinnedGreeting, ...conversation()]),
    )
    expect([batch.code, batch.path]).toStrictEqual(['INVALID_MESSAGE', '[1].metadata.custom.pinned'])
    expect(await manager.history()).toStrictEqual([])
    // After a plain user message the flag pins as before.
    await manager.append([...conversation().slice(0, 4), pinnedGreeting])
    expect((await manager.history()).filter((e) => e.pinned).map((e) => e.seq)).toStrictEqual([4])
  })

  it('refuse a read-only store with READ_ONLY', async () => {
    const { store } = await applied(0)
    const reader = await backend.reopen(store, { readonly: true })
    expect((await refusalOf(() => reader.pin('s', { seq: 1 }))).code).toBe('READ_ONLY')
    expect((await refusalOf(() => reader.unpin('s', { seq: 1 }))).code).toBe('READ_ONLY')
  })
})
