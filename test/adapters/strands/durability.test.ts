/**
 * When the Strands manager writes what the agent adds: by default (`durability: 'invocation'`) held
 * until the invocation ends and written with the window in one transaction; with `'message'`, each
 * message in its own. Commits are counted from the write-ahead log of a real file.
 */
import { describe, expect, it } from 'vitest'
import {
  AfterInvocationEvent,
  HookOrder,
  Message,
  MessageAddedEvent,
  TextBlock,
  tool,
} from '@strands-agents/sdk'
import { z } from 'zod'
import { PersistentConversationManager as LedgerManager, type MessageData } from '../../../src/index.js'
import type { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel, type ScriptedCall } from '../../../examples/strands-scripted-model.js'
import { invalidity } from '../../helpers/provider-validity.js'
import { refusal } from '../../helpers/refusal.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { restartWal, walCommits } from '../../helpers/wal.js'
import { assertWindowRules } from '../../helpers/window-rules.js'
import { json, ledgerAgent, recordingLogger, recordingModel } from './helpers.js'

const dir = useTempDir('context-ledger-durability-')

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A `lookup` tool that runs `during` each time it is called. */
function lookupCalling(during: () => void) {
  return tool({
    name: 'lookup',
    description: 'Look something up',
    inputSchema: z.object({ q: z.string() }),
    callback: ({ q }) => {
      during()
      return `${q}: found`
    },
  })
}

/** Role and content only: what two runs with different trackingIds must agree on. */
function contentOf(messages: readonly MessageData[]): unknown[] {
  return messages.map((m) => [m.role, m.content])
}

describe('PersistentConversationManager (Strands)', () => {
  describe('durability', () => {
    it("writes an invocation's four messages and its window in one commit ('message': five)", async () => {
      for (const [durability, commits] of [
        ['invocation', 1],
        ['message', 5],
      ] as const) {
        const store = dir.open(`${durability}.db`)
        const { agent, manager } = ledgerAgent({ store, sessionId: 's', windowSize: 6, durability })
        expect(manager.durability).toBe(durability)
        await agent.invoke('hello')
        await agent.invoke('ask first')
        restartWal(store)
        await agent.invoke('ask second')
        expect(walCommits(store)).toBe(commits)
        expect(store.session('s')?.messageCount).toBe(10)
        expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
        assertWindowRules(store, 's')
      }
    })

    it('with alternate: true, still writes an invocation in one commit and hands the model alternating roles', async () => {
      const store = dir.open()
      const calls: ScriptedCall[] = []
      const model = recordingModel('tool-', calls)
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', windowSize: 6, alternate: true },
        { model },
      )
      await agent.invoke('hello')
      await agent.invoke('ask first')
      restartWal(store)
      await agent.invoke('ask second')
      expect(walCommits(store)).toBe(1)
      for (const call of calls) {
        const roles = call.messages.map((m) => m.role)
        expect(roles.every((role, i) => i === 0 || role !== roles[i - 1])).toBe(true)
      }
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window({ alternate: true }))
    })

    it('holds the messages until the invocation ends: a tool sees none of them in the store', async () => {
      for (const durability of ['invocation', 'message'] as const) {
        const store = dir.open(`${durability}.db`)
        const seen: number[] = []
        const { agent } = ledgerAgent(
          { store, sessionId: 's', durability },
          { tools: [lookupCalling(() => seen.push(store.session('s')?.messageCount ?? 0))] },
        )
        await agent.invoke('hello')
        await agent.invoke('ask now')
        // Stored when the tool ran: with 'message', the prompt; held, not even that. (Strands 1.19 adds
        // the call to agent.messages with its result, once the tool has run.)
        expect(seen).toStrictEqual([durability === 'message' ? 3 : 2])
        expect(store.session('s')?.messageCount).toBe(6)
      }
    })

    it('flush() writes the held prompt before the tool goes on', async () => {
      const store = dir.open()
      const seen: number[] = []
      const late: { manager?: PersistentConversationManager } = {}
      const built = ledgerAgent(
        { store, sessionId: 's' },
        {
          tools: [
            lookupCalling(() => {
              late.manager?.flush()
              seen.push(store.session('s')?.messageCount ?? 0)
            }),
          ],
        },
      )
      late.manager = built.manager
      await built.agent.invoke('hello')
      restartWal(store)
      await built.agent.invoke('ask now')
      expect(seen).toStrictEqual([3])
      expect(store.session('s')?.messageCount).toBe(6)
      // The flush, then the call, its result and the answer with the window.
      expect(walCommits(store)).toBe(2)
      expect(json(built.agent.messages)).toStrictEqual(built.manager.ledger.window())
      // Nothing held: a flush between invocations writes nothing.
      restartWal(store)
      built.manager.flush()
      expect(walCommits(store)).toBe(0)
    })

    it("stores the same conversation and shows the same windows as durability 'message'", async () => {
      const prompts = [
        'hello',
        'ask a',
        'pin 0 keep it',
        'ask b',
        'thanks',
        'ask c',
        'unpin 0',
        'ask d',
        'bye',
      ]
      const runs = await Promise.all(
        (['invocation', 'message'] as const).map(async (durability) => {
          const store = dir.open(`${durability}.db`)
          const calls: ScriptedCall[] = []
          const model = recordingModel('tool-', calls)
          const { agent, manager } = ledgerAgent(
            { store, sessionId: 's', windowSize: 5, durability },
            { model },
          )
          const windows: unknown[] = []
          restartWal(store)
          for (const prompt of prompts) {
            await agent.invoke(prompt)
            expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
            windows.push(contentOf(manager.ledger.window()))
          }
          assertWindowRules(store, 's')
          expect(calls.map((c) => invalidity(c.messages)).filter((w) => w !== undefined)).toStrictEqual([])
          const history = manager.ledger.history({ limit: 1000 }).map((e) => e.message)
          return {
            windows,
            history: contentOf(history),
            pins: store.pinEvents('s').length,
            commits: walCommits(store),
          }
        }),
      )
      const [held, each] = runs
      expect(held?.history).toStrictEqual(each?.history)
      expect(held?.windows).toStrictEqual(each?.windows)
      expect(held?.pins).toBe(2)
      expect(each?.pins).toBe(2)
      // One commit per invocation, plus the session's first message and the two pin tool calls, which
      // write what is held before they pin.
      expect(held?.commits).toBe(prompts.length + 3)
      expect(each?.commits).toBeGreaterThan(2 * (held?.commits ?? 0))
    })

    it('writes a long invocation in steps of at most 32 held messages', async () => {
      const store = dir.open()
      const rounds = 40
      const seen: number[] = []
      // The model calls lookup until it has seen `rounds` results in this invocation.
      const model = new ScriptedModel({
        script: (call) => {
          const results = call.messages.filter((m) => m.content.some((b) => b.type === 'toolResultBlock'))
          return results.length < rounds
            ? [{ toolUse: { name: 'lookup', input: { q: `r${results.length}` } } }]
            : 'done'
        },
      })
      const { agent, manager } = ledgerAgent(
        { store, sessionId: 's', windowSize: 1000 },
        { model, tools: [lookupCalling(() => seen.push(store.session('s')?.messageCount ?? 0))] },
      )
      await agent.invoke('go')
      expect(seen).toHaveLength(rounds)
      // The first message of a session is written at once; then at most 32 are ever held. When the
      // i-th call runs, the agent has added the prompt and i calls with their results.
      const counts = [1, ...seen]
      const added = (i: number): number => 1 + 2 * i
      for (let i = 0; i < rounds; i++) expect(added(i) - (seen[i] ?? 0)).toBeLessThanOrEqual(32)
      expect(counts.some((c, i) => i > 0 && c > (counts[i - 1] ?? 0))).toBe(true)
      expect(store.session('s')?.messageCount).toBe(2 + 2 * rounds)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })

    it('gives messages Strands minted a time-ordered trackingId that later hooks see; keeps one the caller chose', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      const seenByHook: string[] = []
      agent.addHook(MessageAddedEvent, (event) => {
        seenByHook.push(event.message.trackingId)
      })
      await agent.invoke('hello')
      await agent.invoke('ask x')
      await agent.invoke([
        new Message({ role: 'user', content: [new TextBlock('mine')], trackingId: 'my-own-id' }),
      ])
      const history = manager.ledger.history({ limit: 100 })
      expect(history.map((e) => e.trackingId)).toStrictEqual(seenByHook)
      const mine = history.find((e) => e.trackingId === 'my-own-id')
      expect(mine?.message.content).toStrictEqual([{ text: 'mine' }])
      const minted = history.filter((e) => e !== mine).map((e) => e.trackingId)
      expect(minted).toHaveLength(history.length - 1)
      for (const id of minted) expect(id).toMatch(UUID_V7)
      expect(minted).toStrictEqual([...minted].sort())
      expect(agent.messages.map((m) => m.trackingId)).toStrictEqual(
        manager.ledger.window().map((m) => m.trackingId),
      )
    })

    it.each(['invocation', 'message'] as const)(
      '(%s) writes the invocation even when another AfterInvocationEvent hook throws',
      async (durability) => {
        const store = dir.open()
        const { agent, manager } = ledgerAgent({ store, sessionId: 's', durability })
        await agent.invoke('hello')
        agent.addHook(AfterInvocationEvent, () => {
          throw new Error('audit hook failed')
        })
        await expect(agent.invoke('ask x')).rejects.toThrow('audit hook failed')
        expect(store.session('s')?.messageCount).toBe(6)
        expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      },
    )

    it.each(['invocation', 'message'] as const)(
      '(%s) answers a call stored early at once: another agent run from the tool finds no open call',
      async (durability) => {
        const store = dir.open()
        const b = ledgerAgent({ store, sessionId: 's', durability })
        // A's tool runs B: B's rows make A write what it holds with its call, and the call's result
        // must follow at once, or B's next prompt finds the call open and answers it with a repair row.
        const askB = tool({
          name: 'lookup',
          description: 'Ask B',
          inputSchema: z.object({ q: z.string() }),
          callback: async ({ q }) => {
            await b.agent.invoke(`thanks ${q}`)
            return `B answered ${q}`
          },
        })
        const model = new ScriptedModel({
          script: (call) =>
            call.index < 2
              ? [
                  {
                    toolUse: {
                      toolUseId: `a${call.index}`,
                      name: 'lookup',
                      input: { q: `sub ${call.index}` },
                    },
                  },
                ]
              : 'A: done',
        })
        const a = ledgerAgent({ store, sessionId: 's', durability }, { model, tools: [askB] })
        await a.agent.invoke('go')
        const history = store.history('s', { limit: 100 })
        expect(history.filter((e) => e.late)).toStrictEqual([])
        expect(history.filter((e) => e.message.metadata?.custom?.contextLedger !== undefined)).toStrictEqual(
          [],
        )
        expect(json(a.agent.messages)).toStrictEqual(a.manager.ledger.window())
        assertWindowRules(store, 's')
      },
    )

    it.each(['invocation', 'message'] as const)(
      '(%s) keeps the original of a message a tool edits in place, and records the edit and a pin as Strands-made',
      async (durability) => {
        const store = dir.open()
        const late: { agent?: { messages: Message[] } } = {}
        const scrub = tool({
          name: 'lookup',
          description: 'Scrub the prompt',
          inputSchema: z.object({ q: z.string() }),
          callback: () => {
            const prompt = late.agent?.messages.at(-1)
            if (prompt !== undefined) {
              prompt.content.splice(0, 1, new TextBlock('[REDACTED]'))
              prompt.metadata = { custom: { pinned: true } }
            }
            return 'scrubbed'
          },
        })
        const { agent, manager } = ledgerAgent({ store, sessionId: 's', durability }, { tools: [scrub] })
        late.agent = agent
        await agent.invoke('hello')
        await agent.invoke('ask my SSN is 123-45-6789')
        const prompt = manager.ledger.message({ seq: 2 })
        expect(prompt.message.content).toStrictEqual([{ text: 'ask my SSN is 123-45-6789' }])
        expect(manager.ledger.window()[2]?.content).toStrictEqual([{ text: '[REDACTED]' }])
        expect(manager.ledger.edits().map((e) => [e.seq, e.kind, e.actor])).toStrictEqual([
          [2, 'edit', 'strands'],
        ])
        expect(store.pinEvents('s').map((e) => [e.seq, e.action, e.actor])).toStrictEqual([
          [2, 'pin', 'strands'],
        ])
      },
    )

    it.each(['invocation', 'message'] as const)(
      '(%s) refuses once a message the token counter cannot count, and goes on storing the next ones',
      async (durability) => {
        const store = dir.open()
        const logger = recordingLogger()
        // A tokenizer that throws on some input (tiktoken on special tokens, say).
        const tokenCounter = (m: MessageData): number => {
          if (JSON.stringify(m.content).includes('poison')) throw new Error('special token')
          return 10
        }
        const { agent, manager } = ledgerAgent({ store, sessionId: 's', durability, tokenCounter, logger })
        await agent.invoke('hello')
        await expect(agent.invoke('poison pill')).rejects.toMatchObject({ code: 'INVALID_TOKEN_COUNT' })
        await agent.invoke('after one')
        await agent.invoke('after two')
        const prompts = store
          .history('s', { limit: 100 })
          .flatMap((e) =>
            e.message.role === 'user' && 'text' in (e.message.content[0] ?? {}) ? [e.message.content[0]] : [],
          )
        expect(prompts).toStrictEqual([{ text: 'hello' }, { text: 'after one' }, { text: 'after two' }])
        expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
        // Logged once per refused message (with 'invocation', the reply quoting the prompt is refused too).
        expect(
          logger.lines.filter((l) => l.level === 'error' && l.text.includes('INVALID_TOKEN_COUNT')).length,
        ).toBeGreaterThan(0)
        assertWindowRules(store, 's')
      },
    )

    it('writes at once the messages a tool called directly adds, outside any invocation', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('hello')
      await agent.tool.lookup?.invoke({ q: 'direct' })
      expect(agent.messages.length).toBeGreaterThan(2)
      expect(store.session('s')?.messageCount).toBe(agent.messages.length)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })

    it('lets a tool redact, pin or delete through manager.ledger what the invocation holds', async () => {
      const store = dir.open()
      const late: { manager?: PersistentConversationManager } = {}
      const forget = tool({
        name: 'lookup',
        description: 'Redact the prompt',
        inputSchema: z.object({ q: z.string() }),
        callback: ({ q }) => {
          const ledger = late.manager?.ledger
          const prompt = ledger?.history({ fromSeq: 2 })[0]
          if (ledger !== undefined && prompt !== undefined) ledger.redact({ trackingId: prompt.trackingId })
          return `${q}: done`
        },
      })
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' }, { tools: [forget] })
      late.manager = manager
      await agent.invoke('hello')
      await agent.invoke('ask my SSN is 123-45-6789')
      // The prompt, held when the tool ran, was written first and then erased (the tool's own input and
      // result quote it: they are the model's words, not the prompt).
      const prompt = store
        .connection()
        .prepare<[], string>('SELECT body FROM messages WHERE seq = 2')
        .pluck()
        .get()
      expect(prompt).toBeDefined()
      expect(prompt).not.toContain('123-45-6789')
      expect(manager.ledger.edits().map((e) => [e.seq, e.kind])).toStrictEqual([[2, 'redact']])
    })

    it('writes a tool call with its result, so another writer never lands between them', async () => {
      const store = dir.open()
      const other = new LedgerManager({ store: dir.open(), sessionId: 's' })
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.invoke('hello')
      // Another process appends to the session during the model call (after the prompt is added), and
      // again between the call and its result reaching the manager.
      agent.addHook(MessageAddedEvent, async (event) => {
        const call = event.message.content.some((b) => b.type === 'toolUseBlock')
        const prompt =
          event.message.role === 'user' && event.message.content.some((b) => b.type === 'textBlock')
        if (call || prompt) {
          await Promise.resolve()
          other.append({
            role: 'user',
            content: [{ text: call ? 'from elsewhere, again' : 'from elsewhere' }],
          })
        }
      })
      await agent.invoke('ask something')
      const history = store.history('s', { limit: 100 })
      expect(
        history.filter((e) => e.late || e.message.metadata?.custom?.contextLedger !== undefined),
      ).toStrictEqual([])
      const call = history.findIndex((e) => e.message.content.some((b) => 'toolUse' in b))
      expect(history[call + 1]?.message.content.some((b) => 'toolResult' in b)).toBe(true)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      assertWindowRules(store, 's')
    })

    it('writes the invocation before an AfterInvocationEvent hook of any order throws', async () => {
      const store = dir.open()
      const { agent, manager } = ledgerAgent({ store, sessionId: 's' })
      await agent.initialize()
      agent.addHook(
        AfterInvocationEvent,
        () => {
          throw new Error('early hook failed')
        },
        { order: HookOrder.SDK_FIRST - 1 },
      )
      await expect(agent.invoke('hello')).rejects.toThrow('early hook failed')
      expect(store.session('s')?.messageCount).toBe(2)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    })

    it('refuses a durability that is neither invocation nor message, naming it', () => {
      const store = dir.open()
      for (const durability of ['sometimes', null, 1, 'INVOCATION'])
        expect(
          refusal(() => ledgerAgent({ store, sessionId: 's', durability: durability as never })),
        ).toMatchObject({
          code: 'INVALID_OPTIONS',
          path: 'durability',
          message: expect.stringMatching(
            /at durability: expected 'invocation' or 'message', got /,
          ) as unknown,
        })
    })
  })
})
