/**
 * What an adversarial run found around summaries (each failed before its fix): a session deleted and
 * started again while the summarizer runs, a prune that erases what a regeneration is made from,
 * throwables that cannot be shown as text, lone surrogates in a summary or a model name, a summary the
 * token budget cannot hold, and a damaged chain that points back at itself. Part of the conformance
 * suite: the same tests on both backends (test/helpers/backend.ts).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import { BACKEND, makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { sqliteOf } from '../helpers/ledger-open.js'
import { texts, turns } from '../helpers/messages.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'

const backend = makeBackend()
let store: LedgerStore
let sid = ''
let tests = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})
beforeEach(() => {
  sid = `s${tests++}`
})

function manager(options: { windowSize: number; tokenBudget?: number }): LedgerManager {
  return backend.manager(store, { sessionId: sid, ...options })
}

const secret = (n: number): MessageData[] =>
  turns(n).map((m) => ({ ...m, content: [{ text: `SECRET ${(m.content[0] as { text: string }).text}` }] }))
const joined = (messages: readonly MessageData[]): string =>
  `SUMMARY OF ${texts(messages.slice(0, -1)).join(' | ')}`
/**
 * What the ledger holds: on SQLite the file's bytes with its log, on PostgreSQL every row of the ledger's
 * tables. A refusal leaves it as it was.
 */
const ledgerState = async (): Promise<string> => {
  const sqlite = sqliteOf(store)
  if (sqlite === undefined) return backend.checksum(store)
  sqlite.store.connection().pragma('wal_checkpoint(TRUNCATE)')
  return createHash('sha256').update(readFileSync(sqlite.path)).digest('hex')
}

describe(`summaries against hostile timing and input [${BACKEND}]`, () => {
  it('refuses to write a summary into a session deleted and started again under the same id', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(secret(5))
    await expect(
      m.summarize(
        async (messages) => {
          await store.deleteSession(sid)
          await m.append(turns(5))
          return joined(messages)
        },
        { summaryRatio: 0.5, preserveRecentMessages: 0 },
      ),
    ).rejects.toMatchObject({ code: 'SUMMARY_CONFLICT' })
    expect(JSON.stringify(await m.window())).not.toContain('SECRET')
    expect(await m.summaries()).toStrictEqual([])
    await assertWindowRulesOf(store, sid)
  })

  it('refuses to write a regeneration into a session deleted and started again (summary ids reused)', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(secret(5))
    const first = await m.summarize(joined, { summaryRatio: 0.5, preserveRecentMessages: 0 })
    const id = first.summary?.id ?? 0
    await expect(
      m.resummarize(id, async (messages) => {
        await store.deleteSession(sid)
        await m.append(turns(5))
        // On SQLite the new session's first summary takes the same id; either way it is another session.
        await m.summarize(joined, { summaryRatio: 0.5, preserveRecentMessages: 0 })
        return `REGEN ${joined(messages)}`
      }),
      // The write conflicts, and the plan made again finds: on SQLite the new session's summary under the
      // reused id (which conflicts again, every time); on PostgreSQL, whose ids are never reused, no such
      // summary in the session.
    ).rejects.toMatchObject({ code: BACKEND === 'sqlite' ? 'SUMMARY_CONFLICT' : 'SUMMARY_NOT_FOUND' })
    expect(JSON.stringify(await m.window())).not.toContain('SECRET')
    await assertWindowRulesOf(store, sid)
  })

  it('does not write back what a prune erased while a regeneration was made', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(secret(8))
    const first = await m.summarize(() => 'an early summary', {
      summaryRatio: 0.5,
      preserveRecentMessages: 0,
    })
    const inputs: string[] = []
    const regenerated = await m.resummarize(first.summary?.id ?? 0, async (messages) => {
      inputs.push(joined(messages))
      await m.prune({ before: Date.now() + 1000, keepPinned: true })
      return joined(messages)
    })
    // The first text, made from the originals, conflicted with the prune; the second was made from what
    // the prune left.
    expect(inputs).toHaveLength(2)
    expect(inputs[0]).toContain('SECRET')
    expect(JSON.stringify(regenerated.message)).not.toContain('SECRET')
    expect((await m.summaries()).find((x) => x.current)?.id).toBe(regenerated.id)
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
    const m = manager({ windowSize: 100 })
    await m.append(turns(5))
    const before = await ledgerState()
    await expect(
      m.summarize(
        () => {
          throw make()
        },
        { summaryRatio: 0.5, preserveRecentMessages: 0 },
      ),
    ).rejects.toMatchObject({ code: 'SUMMARIZER_FAILED' })
    expect(await ledgerState()).toBe(before)
  })

  const throwing = (key: string): object =>
    Object.defineProperty({}, key, {
      enumerable: true,
      get() {
        throw new Error(`${key} getter`)
      },
    })
  it.each([
    ['whose text getter throws', () => throwing('text')],
    ['whose content getter throws', () => throwing('content')],
    ['whose model getter throws', () => Object.assign(throwing('model'), { text: 'S' })],
    ['whose content holds a block whose text getter throws', () => ({ content: [throwing('text')] })],
    [
      'a Proxy whose traps throw',
      () =>
        new Proxy(
          {},
          {
            has() {
              throw new Error('has trap')
            },
            get() {
              throw new Error('get trap')
            },
          },
        ),
    ],
    [
      'a revoked Proxy',
      () => {
        const r = Proxy.revocable([], {})
        r.revoke()
        return r.proxy
      },
    ],
  ])('reports a summarizer result %s as SUMMARIZER_FAILED, nothing written', async (_what, make) => {
    const m = manager({ windowSize: 100 })
    await m.append(turns(5))
    const before = await ledgerState()
    const error = await m
      .summarize(() => make() as string, { summaryRatio: 0.5, preserveRecentMessages: 0 })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED' })
    expect(await ledgerState()).toBe(before)
  })

  it('mends a lone surrogate in the summary as repair mends one in a message', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(turns(5))
    const r = await m.summarize(() => 'cut off here \ud83d', { summaryRatio: 0.5, preserveRecentMessages: 0 })
    expect(r.summary?.message.content).toStrictEqual([{ text: 'cut off here \ufffd' }])
  })

  it('records no model name with a lone surrogate: the option is refused, an output name ignored', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(turns(5))
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
    const m = manager({ windowSize: 4, tokenBudget: 200 })
    await m.append(turns(6))
    const before = await ledgerState()
    const error = await m.summarizeExcess(() => 'x'.repeat(4000)).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED' })
    expect((error as Error).message).toContain('more than the tokenBudget of 200')
    expect(await ledgerState()).toBe(before)
  })

  it('refuses to regenerate from a chain that points back at itself (a damaged ledger)', async () => {
    const m = manager({ windowSize: 100 })
    await m.append(turns(8))
    await m.summarize(() => 'one', { summaryRatio: 0.3, preserveRecentMessages: 0 })
    const second = await m.summarize(() => 'two', { summaryRatio: 0.3, preserveRecentMessages: 0 })
    const id = second.summary?.id ?? 0
    const older = second.summary?.replaces ?? 0
    expect(older).toBeGreaterThan(0)
    // Damage the ledger: the older summary now replaces the newer one.
    const damaged = await backend.scalar(store, {
      sqlite: `UPDATE summaries SET replaces = ${id} WHERE id = ${older} RETURNING id`,
      postgres: `UPDATE context_ledger.summaries SET replaces = ${id} WHERE id = ${older} RETURNING id`,
    })
    expect(Number(damaged)).toBe(older)
    await expect(m.resummarize(id, () => 'three')).rejects.toMatchObject({ code: 'CORRUPT_DATABASE' })
  })
})
