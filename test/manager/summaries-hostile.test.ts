/**
 * What an adversarial run found around summaries (each failed before its fix): a session deleted and
 * started again while the summarizer runs, a prune that erases what a regeneration is made from,
 * throwables that cannot be shown as text, lone surrogates in a summary or a model name, a summary the
 * token budget cannot hold, and a damaged chain that points back at itself.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PersistentConversationManager, type ContextStore, type MessageData } from '../../src/index.js'
import { texts, turns } from '../helpers/messages.js'
import { useTempStore } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'

let store: ContextStore
let path: string
useTempStore((opened) => {
  ;({ store, path } = opened)
})

const secret = (n: number): MessageData[] =>
  turns(n).map((m) => ({ ...m, content: [{ text: `SECRET ${(m.content[0] as { text: string }).text}` }] }))
const joined = (messages: readonly MessageData[]): string =>
  `SUMMARY OF ${texts(messages.slice(0, -1)).join(' | ')}`
/** The file's bytes, with its log: a refusal leaves both as they were. */
const fileHash = (): string => {
  store.connection().pragma('wal_checkpoint(TRUNCATE)')
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

describe('summaries against hostile timing and input', () => {
  it('refuses to write a summary into a session deleted and started again under the same id', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(secret(5))
    await expect(
      m.summarize(
        (messages) => {
          store.deleteSession('s')
          m.append(turns(5))
          return joined(messages)
        },
        { summaryRatio: 0.5, preserveRecentMessages: 0 },
      ),
    ).rejects.toMatchObject({ code: 'SUMMARY_CONFLICT' })
    expect(JSON.stringify(m.window())).not.toContain('SECRET')
    expect(m.summaries()).toStrictEqual([])
    assertWindowRules(store, 's')
  })

  it('refuses to write a regeneration into a session deleted and started again (summary ids reused)', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(secret(5))
    const first = await m.summarize(joined, { summaryRatio: 0.5, preserveRecentMessages: 0 })
    const id = first.summary?.id ?? 0
    await expect(
      m.resummarize(id, async (messages) => {
        store.deleteSession('s')
        m.append(turns(5))
        // The new session's first summary takes the same id.
        await m.summarize(joined, { summaryRatio: 0.5, preserveRecentMessages: 0 })
        return `REGEN ${joined(messages)}`
      }),
    ).rejects.toMatchObject({ code: 'SUMMARY_CONFLICT' })
    expect(JSON.stringify(m.window())).not.toContain('SECRET')
    assertWindowRules(store, 's')
  })

  it('does not write back what a prune erased while a regeneration was made', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(secret(8))
    const first = await m.summarize(() => 'an early summary', {
      summaryRatio: 0.5,
      preserveRecentMessages: 0,
    })
    const inputs: string[] = []
    const regenerated = await m.resummarize(first.summary?.id ?? 0, (messages) => {
      inputs.push(joined(messages))
      m.prune({ before: Date.now() + 1000, keepPinned: true })
      return joined(messages)
    })
    // The first text, made from the originals, conflicted with the prune; the second was made from what
    // the prune left.
    expect(inputs).toHaveLength(2)
    expect(inputs[0]).toContain('SECRET')
    expect(JSON.stringify(regenerated.message)).not.toContain('SECRET')
    expect(m.summaries().find((x) => x.current)?.id).toBe(regenerated.id)
  })

  it.each([
    ['an object with no prototype', () => Object.create(null) as unknown],
    [
      'an object whose toString throws',
      () => ({
        toString() {
          throw new Error('no')
        },
      }),
    ],
    [
      'an Error whose message getter throws',
      () => {
        const e = new Error('x')
        Object.defineProperty(e, 'message', {
          get() {
            throw new Error('no')
          },
        })
        return e
      },
    ],
  ])('reports a summarizer that throws %s as SUMMARIZER_FAILED, nothing written', async (_what, make) => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(turns(5))
    const before = fileHash()
    await expect(
      m.summarize(
        () => {
          throw make()
        },
        { summaryRatio: 0.5, preserveRecentMessages: 0 },
      ),
    ).rejects.toMatchObject({ code: 'SUMMARIZER_FAILED' })
    expect(fileHash()).toBe(before)
  })

  it('mends a lone surrogate in the summary as repair mends one in a message', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(turns(5))
    const r = await m.summarize(() => 'cut off here \ud83d', { summaryRatio: 0.5, preserveRecentMessages: 0 })
    expect(r.summary?.message.content).toStrictEqual([{ text: 'cut off here \ufffd' }])
  })

  it('records no model name with a lone surrogate: the option is refused, an output name ignored', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(turns(5))
    await expect(m.summarize(() => 'S', { model: 'opt\udc00' })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    })
    const r = await m.summarize(() => ({ text: 'S', model: 'gpt\ud800x' }), {
      model: 'fallback',
      summaryRatio: 0.5,
      preserveRecentMessages: 0,
    })
    expect(r.summary?.model).toBe('fallback')
  })

  it('does not fold the excess into a summary the token budget cannot hold', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4, tokenBudget: 200 })
    m.append(turns(6))
    const before = fileHash()
    const error = await m.summarizeExcess(() => 'x'.repeat(4000)).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED' })
    expect((error as Error).message).toContain('more than the tokenBudget of 200')
    expect(fileHash()).toBe(before)
  })

  it('refuses to regenerate from a chain that points back at itself (a damaged file)', async () => {
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 100 })
    m.append(turns(8))
    await m.summarize(() => 'one', { summaryRatio: 0.3, preserveRecentMessages: 0 })
    const second = await m.summarize(() => 'two', { summaryRatio: 0.3, preserveRecentMessages: 0 })
    const id = second.summary?.id ?? 0
    // Damage the file: the older summary now replaces the newer one.
    store
      .connection()
      .prepare('UPDATE summaries SET replaces = ? WHERE id = ?')
      .run(id, second.summary?.replaces)
    await expect(m.resummarize(id, () => 'three')).rejects.toMatchObject({ code: 'CORRUPT_DATABASE' })
  })
})
