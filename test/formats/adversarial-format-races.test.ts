/**
 * A session deleted and created again in another format by another connection, while this connection
 * still has the first format cached: every read shows the new session's bodies exactly, and every write
 * reads its messages in the new session's format (or refuses them with a typed error), never the stale
 * one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ContextLedgerError } from '../../src/errors.js'
import type { ContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

const strands = (text: string) => ({ role: 'user', content: [{ text }] })
const model = (text: string) => ({ role: 'user', content: text })

let dir: TempDir
let a: ContextStore
let b: ContextStore
beforeEach(() => {
  dir = tempDir()
  a = dir.open()
  b = dir.open()
})
afterEach(() => {
  dir.cleanup()
})

/** `a` caches the session's format (its second append looks it up); `b` then recreates it as `next`. */
function recreate(sessionId: string, first: 'strands' | 'ai-sdk/model', next: 'strands' | 'ai-sdk/model') {
  const m = first === 'strands' ? strands('old') : model('old')
  a.append(sessionId, m, { format: first })
  a.append(sessionId, m)
  a.history(sessionId)
  b.deleteSession(sessionId)
  b.append(sessionId, next === 'strands' ? strands('new') : model('new'), { format: next })
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(ContextLedgerError)
    return (error as ContextLedgerError).code
  }
}

describe('a stale format cache', () => {
  it('appends without a named format in the recreated session’s format', () => {
    recreate('s', 'ai-sdk/model', 'strands')
    expect(a.append('s', strands('more')).map((e) => e.seq)).toEqual([1])
    expect(b.history('s').map((e) => e.message.content)).toEqual([[{ text: 'new' }], [{ text: 'more' }]])
  })

  it('creates a deleted session as a Strands one when no format is named', () => {
    a.append('t', model('old'), { format: 'ai-sdk/model' })
    a.append('t', model('old'))
    b.deleteSession('t')
    expect(a.append('t', strands('fresh')).map((e) => e.seq)).toEqual([0])
    expect(b.sessions().find((s) => s.id === 't')?.format).toBe('strands')
    // An AI SDK message with no format named is read as Strands, as on a fresh connection.
    b.deleteSession('t')
    expect(codeOf(() => a.append('t', model('x')))).toBe('INVALID_MESSAGE')
  })

  it('shows a recreated AI SDK session’s pinned bodies exactly, without a Strands pin flag', () => {
    recreate('v', 'strands', 'ai-sdk/model')
    b.pin('v', { seq: 0 })
    // history finds the new session's key first; the format cached with the old key must not survive it.
    expect(a.history('v').map((e) => e.message)).toEqual([model('new')])
    expect(a.window('v')).toEqual([model('new')])
    expect(a.pinnedMessages({ sessionId: 'v' }).map((p) => p.message)).toEqual([model('new')])
    expect(a.pinnedMessages().map((p) => p.message)).toEqual([model('new')])
    expect(a.pinnedMessages({ sessionId: 'v', actor: 'user' }).map((p) => p.message)).toEqual([model('new')])
  })

  it('reads an edit, a window replacement and a redaction in the recreated session’s format', () => {
    for (const id of ['e', 'w', 'r']) recreate(id, 'strands', 'ai-sdk/model')
    // Strands bodies are not AI SDK messages: refused with a typed error, nothing written.
    expect(codeOf(() => a.editMessage('e', { seq: 0 }, strands('x')))).toBe('INVALID_MESSAGE')
    expect(
      codeOf(() => {
        a.setWindowContent('w', { seq: 0 }, strands('x'))
      }),
    ).toBe('INVALID_MESSAGE')
    expect(codeOf(() => a.redactMessage('r', { seq: 0 }, { replacement: strands('x') }))).toBe(
      'INVALID_MESSAGE',
    )
    for (const id of ['e', 'w', 'r']) expect(b.window(id)).toEqual([model('new')])
    // In the session's own format they are written.
    a.editMessage('e', { seq: 0 }, model('edited'))
    a.setWindowContent('w', { seq: 0 }, model('shown'))
    a.redactMessage('r', { seq: 0 }, { replacement: model('gone') })
    expect([b.window('e'), b.window('w'), b.history('r').map((e) => e.message)]).toEqual([
      [model('edited')],
      [model('shown')],
      [model('gone')],
    ])
  })
})
