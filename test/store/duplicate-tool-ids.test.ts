/**
 * Two calls with one toolUseId cannot be told apart: answering one leaves the other open for ever, and a
 * result for it many turns later would put a toolResult in the window without its toolUse. So a message
 * may not repeat a toolUseId (nor answer one id twice), and a new call may not reuse the id of a call
 * still waiting in the session.
 */
import { describe, expect, it } from 'vitest'
import { PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { ledgerChecksum } from '../reliability/db-checksum.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { refusal } from '../helpers/refusal.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assistant, toolResult, toolResults, toolUse, user } from '../helpers/messages.js'

/** A ledger file holding `toolUse('x', 'x')` at `seq` as two rows for one id, the second never answered (as files from before this check can). */
function openSecondCall(seq: number | undefined): void {
  const pk = store.connection().prepare('SELECT pk FROM sessions WHERE id = ?').pluck().get('s')
  store
    .connection()
    .prepare('INSERT INTO tool_calls (session, tool_use_id, name, use_seq) VALUES (?, ?, ?, ?)')
    .run(pk, 'x', 'search', seq)
}

let store: ContextStore
useTempStore((opened) => {
  ;({ store } = opened)
})

describe('a duplicate toolUseId inside one assistant message', () => {
  it('is refused with INVALID_MESSAGE naming the second block, alone or in a batch, and changes nothing', () => {
    store.append('s', user('find it'))
    const before = ledgerChecksum(store.connection())
    const single = refusal(() => store.append('s', toolUse('a', 'x', 'x')))
    expect([single.code, single.path]).toStrictEqual(['INVALID_MESSAGE', 'content[2].toolUse.toolUseId'])
    expect(single.message).toContain('content[1]')
    const batch = refusal(() => store.append('s', [toolUse('x', 'x'), toolResult('x')]))
    expect([batch.code, batch.path]).toStrictEqual(['INVALID_MESSAGE', '[0].content[1].toolUse.toolUseId'])
    expect(ledgerChecksum(store.connection())).toBe(before)
  })

  it('cannot leave a call open that a result many turns later answers', () => {
    const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
    manager.append(user('find it'))
    // Before the rule: both calls were recorded, the result answered one, the other stayed open.
    expect(refusal(() => manager.append(toolUse('x', 'x'))).code).toBe('INVALID_MESSAGE')
    manager.append(toolUse('x'))
    manager.append(toolResult('x'))
    for (let i = 0; i < 5; i++) {
      manager.append([user(`q${i}`), { role: 'assistant', content: [{ text: `a${i}` }] }])
      manager.applyWindow()
    }
    // The one call was answered: a second result for it is late — archived, shown as text, never linked.
    const late = manager.append(toolResult('x'))
    expect(late.late).toBe(true)
    expect(
      manager
        .window()
        .at(-1)
        ?.content.some((b) => 'toolResult' in b),
    ).toBe(false)
    assertWindowRules(store, 's')
  })

  it('also refuses one message answering the same id twice, even with two calls of that id open', () => {
    const [, use] = store.append('s', [user('find it'), toolUse('x')])
    openSecondCall(use?.seq)
    const before = ledgerChecksum(store.connection())
    const error = refusal(() => store.append('s', toolResults(['x', 'x'])))
    expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', 'content[1].toolResult.toolUseId'])
    expect(ledgerChecksum(store.connection())).toBe(before)
  })

  it('refuses a new call reusing the id of a call still open in the session (a ledger written before the rule)', () => {
    const [, use] = store.append('s', [user('find it'), toolUse('x')])
    store.append('s', [toolResult('x'), assistant('done'), user('again')])
    openSecondCall(use?.seq)
    const before = ledgerChecksum(store.connection())
    const error = refusal(() => store.append('s', toolUse('y', 'x')))
    expect([error.code, error.path]).toStrictEqual(['INVALID_MESSAGE', 'content[1].toolUse.toolUseId'])
    expect(error.sessionId).toBe('s')
    expect(ledgerChecksum(store.connection())).toBe(before)
    // An id whose call was answered may be used again.
    store.append('s', toolUse('y'))
  })
})
