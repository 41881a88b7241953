/**
 * The window of a `claude-agent` session under random transcripts, on either backend (a
 * conformance-suite file): sequences of the entry types the CLI writes — prompts, the model's blocks one
 * entry each (text, parallel calls sharing a message id), results answered in full, in part or not, in
 * order or not, attachments between them, results for calls never made, bookkeeping entries without
 * uuid, compactions — appended in random batches, with random pins, limits and summaries, then pruned.
 * After every step the archive is the entries as appended (pruned ones in their pruned form), no repair
 * row is written, every result the window shows follows its call, every call it shows that was answered
 * has its answer after it, and the checker `context-ledger check` runs passes.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { appendInChunks } from '../helpers/chunked.js'
import { fcRuns } from '../helpers/runs.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { EntryMaker, asMessages, type Entry } from '../helpers/claude-format-entries.js'

const backend = makeBackend()
let shared: LedgerStore
let session = 0
beforeAll(async () => {
  shared = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

const step = fc.record({
  text: fc.boolean(),
  calls: fc.integer({ min: 0, max: 3 }),
  answered: fc.integer({ min: 0, max: 3 }),
  reversed: fc.boolean(),
  between: fc.boolean(),
  failed: fc.boolean(),
})

const exchange = fc.record({
  steps: fc.array(step, { maxLength: 3 }),
  reply: fc.boolean(),
  bookkeeping: fc.boolean(),
  ghost: fc.boolean(),
  compaction: fc.boolean(),
})

type Exchange = {
  steps: {
    text: boolean
    calls: number
    answered: number
    reversed: boolean
    between: boolean
    failed: boolean
  }[]
  reply: boolean
  bookkeeping: boolean
  ghost: boolean
  compaction: boolean
}

/** A transcript as the CLI writes one, from the generated exchanges. */
function entriesOf(exchanges: readonly Exchange[], prefix: string): Entry[] {
  const m = new EntryMaker(prefix)
  const out: Entry[] = []
  let n = 0
  exchanges.forEach((e, i) => {
    if (e.bookkeeping) out.push(EntryMaker.bookkeeping('queue-operation'))
    out.push(m.prompt(`question ${i} about harbour ${i}`))
    for (const s of e.steps) {
      const id = `msg_${n++}`
      if (s.text) out.push(m.text(`looking up harbour ${i}`, id))
      const calls = Array.from({ length: s.calls }, () => `toolu_${n++}`)
      calls.forEach((c, k) => {
        out.push(m.call(c, { harbour: i, k }, id))
        if (s.between && k === 0) out.push(m.attachment(`reminder ${i}`))
      })
      const answered = calls.slice(0, s.answered)
      for (const c of s.reversed ? answered.reverse() : answered)
        out.push(m.result(c, `pier ${c} of harbour ${i}`, s.failed))
    }
    if (e.ghost) out.push(m.result(`ghost_${n++}`, 'an answer to nothing'))
    if (e.reply) out.push(m.text(`harbour ${i} is by the pier`, `msg_${n++}`))
    if (e.bookkeeping) out.push(EntryMaker.bookkeeping('last-prompt'), EntryMaker.bookkeeping('cost-state'))
    if (e.compaction) out.push(...m.compaction(`summary of harbours up to ${i}`, out.at(-1)?.uuid))
  })
  return out
}

type Block = { type?: string; id?: string; tool_use_id?: string }
const blocks = (e: unknown): Block[] => {
  const content = (e as { message?: { content?: unknown } }).message?.content
  return Array.isArray(content) ? (content as Block[]) : []
}

/**
 * What the CLI and a model read of the window pairs: every result follows its call, and every call whose
 * answer is in the archive (on time) has it after it.
 */
function assertPairs(window: readonly unknown[], answered: ReadonlySet<string>): void {
  const open = new Set<string>()
  for (const e of window)
    for (const b of blocks(e)) {
      if (b.type === 'tool_result' && b.tool_use_id !== undefined) {
        expect(open.has(b.tool_use_id), `result ${b.tool_use_id} follows its call`).toBe(true)
        open.delete(b.tool_use_id)
      }
      if (b.type === 'tool_use' && b.id !== undefined) open.add(b.id)
    }
  for (const id of open) expect(answered.has(id), `call ${id} answered in the window`).toBe(false)
}

describe(`the window of a claude-agent session [${BACKEND}]`, () => {
  it('pairs calls and results, writes no repair row and passes check under random limits, pins, summaries and retention', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(exchange, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 16 }),
        fc.option(fc.integer({ min: 30, max: 400 }), { nil: undefined }),
        fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.boolean(),
        async (exchanges, windowSize, tokenBudget, chunks, pins, summarize) => {
          const sessionId = `p-${session++}`
          const entries = entriesOf(exchanges, sessionId)
          const m = backend.manager(shared, { sessionId, windowSize, tokenBudget, format: 'claude-agent' })
          // Appended in batches: a call and its results may arrive in different appends.
          await appendInChunks(m, asMessages(entries), chunks)
          const history = await shared.history(sessionId, { limit: 10_000 })
          expect(history.map((e) => e.message)).toStrictEqual(entries)
          const answered = new Set(
            history.filter((e) => !e.late).flatMap((e) => blocks(e.message).map((b) => b.tool_use_id ?? '')),
          )
          const opener = entries.findIndex((e) => e.type === 'user')
          for (const p of pins) await m.pin({ seq: opener + (p % (entries.length - opener)) })
          const rules = async () => {
            assertPairs(await m.window(), answered)
            await assertWindowRulesOf(shared, sessionId, { first: m.limits.first, last: m.limits.last })
          }
          await m.applyWindow()
          await rules()
          if (summarize) {
            await m.summarize(() => 'what the harbours were', {
              summaryRatio: 0.5,
              preserveRecentMessages: 2,
            })
            await rules()
          }
          await m.reduce()
          await rules()
          const pinned = (await shared.pinnedMessages({ sessionId })).map((p) => p.seq)
          await shared.prune({ sessionId, before: Date.now() + 60_000, keepPinned: true })
          await rules()
          for (const e of await shared.history(sessionId, { limit: 10_000 })) {
            const body = e.message as unknown as Entry
            const original = entries[e.seq] as Entry
            if (body.contextLedger === undefined) expect(body).toStrictEqual(original)
            else {
              expect(pinned).not.toContain(e.seq)
              expect(e.inWindow).toBe(false)
              expect([body.type, body.uuid, blocks(body).length]).toStrictEqual([
                original.type,
                original.uuid,
                blocks(original).length,
              ])
            }
          }
        },
      ),
      { numRuns: fcRuns(30) },
    )
  })
})
