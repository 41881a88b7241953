/**
 * Every window rule holds for every format because the rules run on facts, and the facts of a message
 * do not depend on its format. Random conversations (text turns, single and parallel tool calls,
 * greetings) are appended twice — as Strands messages and, translated part for part, as AI SDK
 * `ModelMessage`s (a toolUse is a `tool-call` part, a user message of toolResults a `tool` message) —
 * and driven through the same operations (appends, applies, reductions, pins, unpins, summaries)
 * with a token counter that reads only the text both forms share. After every step the two windows
 * hold the same seqs, the same summary and the same token total, and the AI SDK window is valid for a
 * provider: every tool result's call is in it before it, every call but the newest is answered.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatNamed } from '../../src/formats/index.js'
import type { MessageData, StoredMessageData } from '../../src/index.js'
import { makeBackend, type LedgerManager, type LedgerStore } from '../helpers/backend.js'
import { conversation, firstPlainUser } from '../helpers/conversations.js'
import { fcRuns } from '../helpers/runs.js'

const backend = makeBackend()
let store: LedgerStore
let session = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

/** The AI SDK form of a Strands test message (the generator's blocks: text, toolUse, toolResult). */
function toModel(m: MessageData): unknown {
  const results = m.content.flatMap((b) => ('toolResult' in b ? [b.toolResult] : []))
  if (results.length > 0)
    return {
      role: 'tool',
      content: results.map((r) => ({
        type: 'tool-result',
        toolCallId: r.toolUseId,
        toolName: 'lookup',
        output: { type: 'text', value: r.content.map((c) => ('text' in c ? c.text : '')).join('\n') },
      })),
    }
  return {
    role: m.role,
    content: m.content.map((b) =>
      'toolUse' in b
        ? {
            type: 'tool-call',
            toolCallId: b.toolUse.toolUseId,
            toolName: b.toolUse.name,
            input: b.toolUse.input,
          }
        : { type: 'text', text: 'text' in b ? b.text : '' },
    ),
  }
}

/** Tokens from the text both forms share (the format's own searchable text): equal for a pair. */
const counterOf =
  (format: 'strands' | 'ai-sdk/model') =>
  (m: unknown): number =>
    4 + Math.ceil(formatNamed(format).text(m as StoredMessageData).length / 4)

const op = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('append' as const), take: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('apply' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reduce' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('summarize' as const) }) },
)

/** A result without its trackingIds (a ModelMessage has no id: the ledger mints one). */
const noIds = (x: unknown): unknown =>
  JSON.parse(JSON.stringify(x, (key, value: unknown) => (key === 'trackingId' ? undefined : value)))

/** What the window of a session is made of: its seqs in the window, whether it shows a summary, its tokens. */
async function windowOf(m: LedgerManager): Promise<unknown> {
  const s = await m.store.session(m.sessionId)
  const inWindow = (await m.history({ limit: 1000 })).filter((e) => e.inWindow).map((e) => e.seq)
  return { inWindow, summary: s?.summaryId !== undefined, tokens: s?.windowTokens ?? 0 }
}

/** A window handed to an AI SDK model: every result after its call, every call but the newest answered. */
function assertValidModelWindow(window: readonly unknown[]): void {
  const called = new Set<string>()
  const answered = new Set<string>()
  window.forEach((message) => {
    const facts = formatNamed('ai-sdk/model').facts(message as StoredMessageData)
    for (const r of facts.toolResults) {
      expect(called.has(r.id), `result ${r.id} follows its call`).toBe(true)
      answered.add(r.id)
    }
    for (const u of facts.toolUses) called.add(u.id)
  })
  const last = window.at(-1) as { role?: string } | undefined
  const open = [...called].filter((id) => !answered.has(id))
  if (open.length > 0) expect(last?.role).toBe('assistant')
}

describe('the window is the same for a conversation in every format', () => {
  it('keeps the same seqs, summary and tokens as Strands after every step, and stays valid for a provider', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversation(10),
        fc.array(op, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 2, max: 14 }),
        fc.option(fc.integer({ min: 60, max: 600 }), { nil: undefined }),
        fc.integer({ min: 0, max: 2 }),
        async (messages, ops, windowSize, tokenBudget, first) => {
          const id = `eq-${session++}`
          const limits = { windowSize, tokenBudget, protectedMessages: { first } }
          const strands = backend.manager(store, {
            sessionId: `${id}-strands`,
            ...limits,
            tokenCounter: counterOf('strands'),
          })
          const model = backend.manager(store, {
            sessionId: `${id}-model`,
            ...limits,
            format: 'ai-sdk/model',
            tokenCounter: counterOf('ai-sdk/model'),
          })
          let appended = 0
          for (const o of ops) {
            if (o.kind === 'append') {
              const batch = messages.slice(appended, appended + o.take)
              if (batch.length === 0) continue
              appended += batch.length
              await strands.append(batch)
              await model.append(batch.map(toModel) as never)
            } else if (o.kind === 'apply') {
              expect(noIds(await model.applyWindow())).toEqual(noIds(await strands.applyWindow()))
            } else if (o.kind === 'reduce') {
              expect(noIds(await model.reduce())).toEqual(noIds(await strands.reduce()))
            } else if (o.kind === 'summarize') {
              const options = { summaryRatio: 0.5, preserveRecentMessages: 2 }
              const fold = (m: LedgerManager) => m.summarize(() => 'what was said before', options)
              // The summaries differ in their own id, time and shape (each a message of its format).
              const same = (r: Awaited<ReturnType<typeof fold>>) =>
                noIds({
                  ...r,
                  summary:
                    r.summary === undefined
                      ? undefined
                      : { ...r.summary, id: 0, replaces: 0, createdAt: 0, message: undefined, sessionId: '' },
                })
              expect(same(await fold(model))).toEqual(same(await fold(strands)))
            } else if (appended > 0) {
              const seq = o.at % appended
              if (seq < firstPlainUser(messages.slice(0, appended))) continue
              const act = o.kind === 'pin' ? 'pin' : 'unpin'
              expect(noIds(await model[act]({ seq }))).toEqual(noIds(await strands[act]({ seq })))
            }
            expect(await windowOf(model)).toEqual(await windowOf(strands))
            assertValidModelWindow(await model.window())
          }
        },
      ),
      { numRuns: fcRuns(60) },
    )
  })
})
