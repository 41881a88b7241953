/** `ledgerSession` in a chat UI: `useChat`-style rounds through the real `toUIMessageStreamResponse`. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { UIMessage } from 'ai'
import { ledgerSession, type LedgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import { chatRound, refusal, textModel } from './helpers.js'

let dir: TempDir
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => {
  dir.cleanup()
})

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** One POST of a `useChat` route answered with `answer` (see `chatRound`), and the prompts the model got. */
async function round(session: LedgerSession, messages: UIMessage[], answer: string, id: string) {
  const prompts: unknown[] = []
  const finished = await chatRound(session, messages, textModel(answer, prompts as never[]), id)
  return { finished, prompts }
}

describe('chat UIs', () => {
  it('saves each round once, loads the screen with ids, gives the model only the window', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 'chat', format: 'ui', windowSize: 4 })
    let screen: UIMessage[] = []
    for (let i = 0; i < 4; i++) {
      const { finished } = await round(
        session,
        [...screen, user(`u${i}`, `question ${i}`)],
        `answer ${i}`,
        `a${i}`,
      )
      screen = finished
    }
    expect(screen.map((m) => m.id)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2', 'u3', 'a3'])
    expect(session.ledger.history().length).toBe(8)
    expect(await session.loadUIMessages()).toEqual(JSON.parse(JSON.stringify(screen)))
    // Paging: the newest 3, then the 3 before them.
    const last = await session.loadUIMessages({ limit: 3 })
    expect(last.map((m) => m.id)).toEqual(['a2', 'u3', 'a3'])
    const before = await session.loadUIMessages({ limit: 3, before: 'a2' })
    expect(before.map((m) => m.id)).toEqual(['u1', 'a1', 'u2'])
    const window = await session.window()
    expect(window.length).toBe(4)
    expect(JSON.stringify(window)).not.toContain('question 0')
  })

  it('a re-sent list appends only what is new', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 'chat', format: 'ui' })
    const list = [
      user('u0', 'hi'),
      { id: 'a0', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] } as UIMessage,
    ]
    expect((await session.saveUIMessages(list)).length).toBe(2)
    expect((await session.saveUIMessages(list)).length).toBe(0)
    expect((await session.saveUIMessages([...list, user('u1', 'more')])).map((e) => e.trackingId)).toEqual([
      'u1',
    ])
    expect(session.ledger.history().length).toBe(3)
  })

  it('a regenerated answer takes the old one’s place; the old one leaves as an abandoned branch', async () => {
    const store = dir.open()
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    const { finished } = await round(session, [user('u0', 'pick a number')], 'seven', 'a0')
    // useChat's regenerate(): the last answer is dropped and the request re-sent (an old route: no trigger).
    const { finished: again, prompts } = await round(session, finished.slice(0, 1), 'three', 'a1')
    expect(JSON.stringify(prompts[0])).not.toContain('seven')
    expect(again.map((m) => m.id)).toEqual(['u0', 'a1'])
    expect(session.ledger.history().map((e) => e.trackingId)).toEqual(['u0', 'a1'])
    expect((await session.loadUIMessages()).map((m) => m.id)).toEqual(['u0', 'a1'])
    const window = await session.window()
    expect(JSON.stringify(window)).toContain('three')
    expect(JSON.stringify(window)).not.toContain('seven')
    // Nothing lost: the old answer is the abandoned branch's own message, after u0.
    const [root, abandoned] = await session.branches()
    expect(root?.sessionId).toBe('chat')
    expect(abandoned).toMatchObject({ parentId: 'chat', forkSeq: 0, kind: 'abandoned', ownMessages: 1 })
    expect(store.history(abandoned?.sessionId ?? '').map((e) => e.trackingId)).toEqual(['u0', 'a0'])
    expect(session.ledger.edits()).toEqual([])
    // The next round carries on from the regenerated answer.
    await round(session, [...again, user('u1', 'and another')], 'nine', 'a2')
    expect((await session.loadUIMessages()).map((m) => m.id)).toEqual(['u0', 'a1', 'u1', 'a2'])
  })

  it('a regeneration saved only by onEnd rewinds too', async () => {
    const store = dir.open()
    const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
    const a0: UIMessage = { id: 'a0', role: 'assistant', parts: [{ type: 'text', text: 'seven' }] }
    await session.saveUIMessages([user('u0', 'pick a number'), a0])
    const a1: UIMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'three' }] }
    await session.saveUIMessages([user('u0', 'pick a number'), a1])
    expect(session.ledger.history().map((e) => e.trackingId)).toEqual(['u0', 'a1'])
    expect((await session.loadUIMessages()).map((m) => m.id)).toEqual(['u0', 'a1'])
    expect(JSON.stringify(await session.window())).not.toContain('seven')
    const abandoned = (await session.branches()).find((b) => b.kind === 'abandoned')
    expect(abandoned?.reason).toBe('regenerate "a0"')
    expect(store.history(abandoned?.sessionId ?? '').map((e) => e.trackingId)).toEqual(['u0', 'a0'])
  })

  it('refuses an id reused with other content, an unknown part type, writing nothing; mints empty ids', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 'chat', format: 'ui' })
    await session.saveUIMessages([user('u0', 'hi')])
    const reused = await refusal(session.saveUIMessages([user('u0', 'something else'), user('u1', 'new')]))
    expect(reused.path).toBe('[0].id')
    const unknown = await refusal(
      session.saveUIMessages([
        user('u1', 'ok'),
        { id: 'u2', role: 'user', parts: [{ type: 'bogus' }] } as never,
      ]),
    )
    expect(unknown.path).toBe('[1].parts[0].type')
    expect(session.ledger.history().length).toBe(1)
    const [minted] = await session.append([user('', 'no id yet')])
    expect(minted?.trackingId).toMatch(/.+/)
    expect(session.ledger.history().length).toBe(2)
  })

  it('a model session refuses the UI calls', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 'm' })
    await expect(session.loadUIMessages()).rejects.toMatchObject({ code: 'INVALID_OPTIONS', path: 'format' })
  })
})
