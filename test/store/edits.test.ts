/**
 * Changing a message after it was appended. An edit changes what the window shows and is logged; the
 * archive keeps the original. A redaction erases the original from the file itself — its bytes are not
 * left in the database, the write-ahead log or freed pages — and the log says who did it and when.
 */
import { readFileSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { refusal } from '../helpers/refusal.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { assistant, user } from '../helpers/messages.js'

const CARD = '4111-1111-1111-1111'

let store: ContextStore
let path: string
useTempStore((opened) => {
  ;({ store, path } = opened)
})

/** Every byte of the ledger on disk: the database, its write-ahead log and shared-memory index. */
function fileBytes(): string {
  return ['', '-wal', '-shm']
    .map((suffix) => (existsSync(path + suffix) ? readFileSync(path + suffix).toString('latin1') : ''))
    .join('')
}

describe('ContextStore.editMessage', () => {
  it('shows the edit in the window, keeps the original in the archive, and logs who and why', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    const entry = m.append(user(`my card is ${CARD}`))
    m.append(assistant('noted'))
    const edited = m.edit({ seq: 0 }, user('my card is [REDACTED]'), { actor: 'support', reason: 'PCI' })
    expect(edited.windowMessage).toStrictEqual({
      ...user('my card is [REDACTED]'),
      trackingId: entry.trackingId,
    })
    expect(m.window()[0]).toStrictEqual(edited.windowMessage)
    expect(m.history()[0]?.message).toStrictEqual(entry.message)
    expect(m.edits()).toMatchObject([
      { seq: 0, kind: 'edit', actor: 'support', reason: 'PCI', message: edited.windowMessage },
    ])
    // Survives a restart.
    store.close()
    store = openContextStore(path)
    const again = new PersistentConversationManager({ store, sessionId: 's' })
    expect(again.window()[0]).toStrictEqual(edited.windowMessage)
    assertWindowRules(store, 's')
  })

  it('records nothing for an edit equal to what the window shows, and shows the original for one equal to it', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    const entry = m.append(user('hello'))
    m.edit({ seq: 0 }, user('hello'))
    expect(m.edits()).toStrictEqual([])
    m.edit({ seq: 0 }, user('hi'))
    const back = m.edit({ seq: 0 }, entry.message)
    expect(back.windowMessage).toBeUndefined()
    expect(m.edits().map((e) => e.kind)).toStrictEqual(['edit', 'edit'])
  })

  it('refuses an edit that changes the role or the tool ids, changing nothing', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append(user('hello'))
    expect(refusal(() => m.edit({ seq: 0 }, assistant('hello'))).code).toBe('INVALID_MESSAGE')
    expect(refusal(() => m.edit({ seq: 3 }, user('x'))).code).toBe('MESSAGE_NOT_FOUND')
    expect(m.edits()).toStrictEqual([])
    expect(m.history()[0]?.windowMessage).toBeUndefined()
  })
})

describe('ContextStore.redactMessage', () => {
  it.each([
    ['a short message', 1],
    ['a message stored on overflow pages', 2_000],
  ])('erases %s from every file of the ledger, and logs who and when', (_name, repeat) => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    const secret = `card ${CARD} `.repeat(repeat)
    m.append(user(secret))
    m.append(assistant('noted'))
    // An edit's copy holds the secret too.
    m.edit({ seq: 0 }, user(`${secret}!`))
    expect(fileBytes()).toContain(CARD)
    const redacted = m.redact({ seq: 0 }, { actor: 'dpo', reason: 'erasure request' })
    expect(redacted.message.content).toStrictEqual([{ text: '[redacted]' }])
    expect(redacted.windowMessage).toBeUndefined()
    expect(m.window()[0]?.content).toStrictEqual([{ text: '[redacted]' }])
    expect(m.edits().map((e) => [e.kind, e.actor, e.message])).toStrictEqual([
      ['edit', 'user', undefined],
      ['redact', 'dpo', undefined],
    ])
    store.close()
    expect(fileBytes()).not.toContain(CARD)
    store = openContextStore(path)
    assertWindowRules(store, 's')
  })

  it('leaves no copy behind after page splits, pins, truncations and edits of the message', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 10 })
    const secret = `card ${CARD} `.repeat(300)
    m.append(user('start'))
    const entry = m.append({
      role: 'user',
      content: [{ text: secret }],
    })
    for (let i = 0; i < 400; i++)
      m.append(i % 2 === 0 ? assistant(`reply ${i} ${'x'.repeat(i)}`) : user(`q ${i}`))
    m.pin({ seq: entry.seq })
    m.applyWindow()
    store.setWindowContent(
      's',
      { seq: entry.seq },
      { ...user(`${CARD} (shown shorter)`), trackingId: entry.trackingId },
    )
    m.edit({ seq: entry.seq }, user(`${secret} edited`))
    m.unpin({ seq: entry.seq })
    m.applyWindow()
    m.redact({ seq: entry.seq })
    store.close()
    expect(fileBytes()).not.toContain(CARD)
    store = openContextStore(path)
    assertWindowRules(store, 's')
  })

  it('redacts every occurrence of a message sent again, and keeps a repair row recognizable', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append([{ ...user(`card ${CARD}`), trackingId: 'q' }, assistant('ok')])
    const copy = m.append({ ...user(`card ${CARD}`), trackingId: 'q' })
    expect(copy.repeatOf).toBe(0)
    m.redact({ seq: copy.seq })
    expect(m.history().map((e) => e.message.content)).toStrictEqual([
      [{ text: '[redacted]' }],
      [{ text: 'ok' }],
      [{ text: '[redacted]' }],
    ])
    m.append({ role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'f', input: {} } }] })
    const { repair } = m.append(user('next'))
    m.redact({ seq: repair?.seq as number })
    expect(m.message({ seq: repair?.seq as number }).message.metadata).toStrictEqual({
      custom: { contextLedger: { repair: 'missing-tool-result' } },
    })
    store.close()
    expect(fileBytes()).not.toContain(CARD)
    store = openContextStore(path)
  })

  it('says the files are not clean yet while a reader holds an older snapshot, and finishes later', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append([user(`card ${CARD}`), assistant('ok')])
    const reader = new Database(path)
    reader.prepare('BEGIN').run()
    reader.prepare('SELECT count(*) FROM messages').get()
    const redacted = m.redact({ seq: 0 })
    expect(redacted.erased).toBe(false)
    expect(store.completeErasure()).toBe(false)
    reader.prepare('COMMIT').run()
    reader.close()
    m.append(user('more'))
    expect(store.completeErasure()).toBe(true)
    expect(fileBytes()).not.toContain(CARD)
  })

  it.each<[string, () => unknown]>([
    ['a redaction without a target', () => store.redactMessage('s', null as never)],
    ['a non-string actor', () => store.redactMessage('s', { seq: 0 }, { actor: 5 } as never)],
    [
      'an unknown redaction option',
      () => store.redactMessage('s', { seq: 0 }, { replacment: user('y') } as never),
    ],
    [
      'a target naming both seq and trackingId',
      () => store.editMessage('s', { seq: 0, trackingId: 'x' }, user('y')),
    ],
    ['null edit options', () => store.editMessage('s', { seq: 0 }, user('y'), null as never)],
    ['a non-boolean alternate', () => store.window('s', { alternate: 'yes' } as never)],
    ['null window options', () => store.window('s', null as never)],
  ])('refuses %s with INVALID_OPTIONS', (_what, call) => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append(user('x'))
    expect(refusal(call).code).toBe('INVALID_OPTIONS')
  })

  it('refuses edits and redactions on a read-only store', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append(user('x'))
    store.close()
    store = openContextStore(path, { readonly: true })
    expect(refusal(() => store.redactMessage('s', { seq: 0 })).code).toBe('READ_ONLY')
    expect(refusal(() => store.editMessage('s', { seq: 0 }, user('y'))).code).toBe('READ_ONLY')
    expect(store.edits('s')).toStrictEqual([])
  })

  it('keeps tool ids, so the tool pair around a redacted result stays valid', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append([
      user('look me up'),
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'crm', input: { card: CARD } } }] },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 't', status: 'success', content: [{ text: CARD }] } }],
      },
    ])
    m.redact({ seq: 1 })
    m.redact({ seq: 2 })
    expect(
      m
        .window()
        .slice(1)
        .map((x) => x.content),
    ).toStrictEqual([
      [{ toolUse: { toolUseId: 't', name: 'crm', input: {} } }],
      [{ toolResult: { toolUseId: 't', status: 'success', content: [{ text: '[redacted]' }] } }],
    ])
    assertWindowRules(store, 's')
    store.close()
    expect(fileBytes()).not.toContain(CARD)
    store = openContextStore(path)
  })

  it('takes a replacement of the same shape, and refuses one of another', () => {
    const m = new PersistentConversationManager({ store, sessionId: 's' })
    m.append(user(`card ${CARD}`))
    expect(refusal(() => m.redact({ seq: 0 }, { replacement: assistant('x') })).code).toBe('INVALID_MESSAGE')
    expect(m.history()[0]?.message.content).toStrictEqual([{ text: `card ${CARD}` }])
    expect(m.redact({ seq: 0 }, { replacement: user('card ****-1111') }).message.content).toStrictEqual([
      { text: 'card ****-1111' },
    ])
  })
})
