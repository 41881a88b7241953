/**
 * Overflow recovery that must never turn into an outage: a truncation the store refuses falls back to
 * eviction, truncation never splits a surrogate pair, and an overflow nothing can fix surfaces as Strands'
 * `ContextWindowOverflowError` — clearly logged — instead of an empty conversation sent to the model.
 * A real `Agent`, the scripted model, real SQLite files.
 */
import { describe, expect, it } from 'vitest'
import { ContextWindowOverflowError, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import { openContextStore, type JsonValue, type MessageData } from '../../../src/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { assistantScript, json, ledgerAgent, recordingLogger } from './helpers.js'

const dir = useTempDir('context-ledger-strands-')

function nested(depth: number): JsonValue {
  let value: JsonValue = 'leaf'
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

describe('overflow recovery', () => {
  it('truncates a tool result whose cut falls inside a surrogate pair, and the agent goes on (also after a restart)', async () => {
    const store = dir.open()
    // The 200-unit head cut lands between the two halves of the emoji.
    const report = tool({
      name: 'lookup',
      description: 'A deploy report',
      inputSchema: z.object({ q: z.string() }),
      callback: () => `${'a'.repeat(199)}👍${'b'.repeat(3000)}`,
    })
    const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 2500 })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's' }, { model, tools: [report] })
    for (const prompt of ['ask a', 'ask b', 'ask c', 'ask d']) await agent.invoke(prompt)

    expect(model.overflows).toBeGreaterThan(0)
    expect(manager.lastReduction).toMatchObject({ trigger: 'overflow', fits: true })
    expect(manager.lastReduction?.truncated).toBeGreaterThan(0)
    const shown = manager.ledger.window().flatMap((m) => m.content)
    const texts = shown.flatMap((b) => ('toolResult' in b ? b.toolResult.content : []))
    expect(
      texts.some((item) => 'text' in item && item.text.startsWith(`${'a'.repeat(199)}\n<truncated`)),
    ).toBe(true)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    store.close()

    const again = dir.open()
    const restarted = ledgerAgent(
      { store: again, sessionId: 's' },
      {
        model: new ScriptedModel({ script: assistantScript('r-'), contextWindowLimit: 2500 }),
        tools: [report],
      },
    )
    await restarted.agent.invoke('ask e')
    expect(json(restarted.agent.messages)).toStrictEqual(restarted.manager.ledger.window())
    expect(again.session('s')?.messageCount).toBe(20)
  })

  it('falls back to eviction when the store refuses a truncated tool result, and the invoke succeeds', async () => {
    // Written under the default limits; reopened with a lower depth limit, the truncated form of the
    // tool result (which keeps its small, deep JSON item) no longer validates.
    const first = openContextStore(dir.file())
    first.append('s', [
      { role: 'user', content: [{ text: 'run the report' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'lookup', input: { q: 'r' } } }] },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 't1',
              status: 'success',
              content: [{ text: 'r'.repeat(6000) }, { json: nested(20) }],
            },
          },
        ],
      },
      { role: 'assistant', content: [{ text: 'Here is the report.' }] },
    ] satisfies MessageData[])
    first.close()

    const store = openContextStore(dir.file(), { limits: { maxDepth: 10 } })
    const logger = recordingLogger()
    const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 1000 })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger }, { model })
    try {
      await agent.invoke('thanks, next question')
      expect(model.overflows).toBe(1)
      expect(manager.lastReduction).toMatchObject({
        trigger: 'overflow',
        truncated: 0,
        truncationsRefused: 1,
        fits: true,
      })
      expect(manager.lastReduction?.evicted).toBeGreaterThan(0)
      expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
      expect(agent.messages.at(-1)?.toJSON().content).toStrictEqual([
        { text: 'Noted: thanks, next question' },
      ])
      expect(logger.lines).toHaveLength(1)
      expect(logger.lines[0]?.level).toBe('warn')
      expect(logger.lines[0]?.text).toMatch(/^session_id=<s>, tracking_id=<[^>]+>, code=<INVALID_MESSAGE>/)
      expect(manager.ledger.history()).toHaveLength(6)
    } finally {
      store.close()
    }
  })

  it('never sends the model an empty conversation: an overflow the window cannot absorb raises the model error, logged', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const seen: number[] = []
    const model = new ScriptedModel({
      script: (call) => {
        seen.push(call.messages.length)
        return assistantScript()(call)
      },
      contextWindowLimit: 500,
    })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', tokenBudget: 300, logger }, { model })
    await agent.invoke('hello')
    await agent.invoke('there')
    const note = `note ${'n'.repeat(4000)}`
    await expect(agent.invoke(note)).rejects.toBeInstanceOf(ContextWindowOverflowError)

    expect(seen.every((length) => length > 0)).toBe(true)
    expect(manager.lastReduction).toMatchObject({ trigger: 'overflow', fits: false })
    expect(manager.lastReduction?.reason).toBeDefined()
    expect(manager.lastReduction?.windowTokens).toBe(store.session('s')?.windowTokens)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    const warning = logger.lines.find((line) => line.text.includes('context window overflow not recovered'))
    expect(warning?.level).toBe('warn')
    expect(warning?.text).toMatch(
      new RegExp(
        `^session_id=<s>, window_messages=<${manager.lastReduction?.windowMessages}>, window_tokens=<${manager.lastReduction?.windowTokens}>.*reason=<${manager.lastReduction?.reason}>`,
      ),
    )
    // The prompt is archived, and the session is not wedged.
    expect(manager.ledger.history({ limit: 10 }).map((e) => e.message.content[0])).toContainEqual({
      text: note,
    })
    await agent.invoke('hello again')
    expect(agent.messages.at(-1)?.toJSON().content).toStrictEqual([{ text: 'Noted: hello again' }])
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    expect(seen.every((length) => length > 0)).toBe(true)
  })

  it('names the protected messages when a pinned message alone is over the model’s limit', async () => {
    const store = dir.open()
    const logger = recordingLogger()
    const model = new ScriptedModel({ script: assistantScript(), contextWindowLimit: 500 })
    const { agent, manager } = ledgerAgent({ store, sessionId: 's', logger }, { model })
    await agent.invoke(`spec ${'s'.repeat(4000)}`).catch(() => undefined)
    manager.ledger.pin({ seq: 0 })
    await expect(agent.invoke('next')).rejects.toBeInstanceOf(ContextWindowOverflowError)
    expect(manager.lastReduction?.protectedMessages).toBeGreaterThan(0)
    const warning = logger.lines
      .filter((line) => line.text.includes('context window overflow not recovered'))
      .at(-1)
    expect(warning?.text).toContain(
      'protected message(s) (pins, protected ranges, their tool partners) must stay',
    )
  })
})
