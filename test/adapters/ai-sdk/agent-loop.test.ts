/**
 * `ledgerSession` in agent loops on SQLite: the real `generateText` / `streamText` with
 * `MockLanguageModelV4`. The loop within `tokenBudget`, reopening and the tools run on both backends in
 * session-conformance.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai'
import { z } from 'zod'
import { ledgerSession, type LedgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { openContextStore } from '../../../src/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'
import type { promptTokens } from './helpers.js'
import { refusal, textModel, toolLoopModel } from './helpers.js'

let dir: TempDir
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => {
  dir.cleanup()
})

const big = (n: number) => `result ${n}: ${'lorem ipsum '.repeat(200)}`
const lookup = tool({
  description: 'Looks a number up',
  inputSchema: z.object({ n: z.number() }),
  execute: ({ n }) => big(n),
})

/** The options of a loop of `calls` tool steps through the session, then an answer. */
const loopOf = async (session: LedgerSession, calls: number) => ({
  model: toolLoopModel({ calls, tool: 'lookup' }),
  tools: { lookup },
  messages: await session.window(),
  prepareStep: session.prepareStep,
  onStepEnd: session.onStepEnd,
  stopWhen: stepCountIs(10),
})

describe('agent loops', () => {
  it('archives every step once through prepareStep + onStepEnd + a final append', async () => {
    const store = dir.open()
    const session = ledgerSession({ store, sessionId: 's', windowSize: 100 })
    await session.append([{ role: 'user', content: 'look up 3 numbers' }])
    const result = await generateText(await loopOf(session, 3))
    // After the loop: a no-op, the loop archived all of it.
    expect(await session.append(result.responseMessages)).toEqual([])
    const history = session.ledger.history({ limit: 100 })
    expect(history.map((e) => e.message)).toEqual(
      JSON.parse(
        JSON.stringify([{ role: 'user', content: 'look up 3 numbers' }, ...result.responseMessages]),
      ),
    )
  })

  it('without onStepEnd, append(result.responseMessages) archives only the final step', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's' })
    const result = await generateText({
      model: toolLoopModel({ calls: 2, tool: 'lookup' }),
      tools: { lookup },
      messages: [{ role: 'user', content: 'go' }],
      prepareStep: session.prepareStep,
      stopWhen: stepCountIs(10),
    })
    // prepareStep archived the new user message and steps 1-2; the final answer comes with the append.
    expect(session.ledger.history().length).toBe(5)
    expect((await session.append(result.responseMessages)).length).toBe(1)
    expect((await session.append(result.responseMessages)).length).toBe(0)
    expect(session.ledger.history().length).toBe(6)
  })

  it('works with streamText', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's', windowSize: 4 })
    await session.append([{ role: 'user', content: 'go' }])
    const result = streamText(await loopOf(session, 3))
    expect(await result.text).toBe('done')
    await session.append(await result.responseMessages)
    expect(session.ledger.history().length).toBe(8)
    const window = await session.window()
    expect(window.length).toBeLessThanOrEqual(4)
    expect(window[0]?.role).not.toBe('tool')
  })

  it('a second process gets the same window', async () => {
    const file = dir.file()
    const session = ledgerSession({ store: dir.open(), sessionId: 's', windowSize: 5 })
    await session.append([{ role: 'user', content: 'go' }])
    await generateText(await loopOf(session, 4))
    const mine = await session.window()
    const script = join(dir.path, 'reopen.mts')
    const src = join(process.cwd(), 'src')
    writeFileSync(
      script,
      `import { openContextStore } from '${src}/index.js'
import { ledgerSession } from '${src}/adapters/ai-sdk/index.js'
const store = openContextStore(${JSON.stringify(file)})
const session = ledgerSession({ store, sessionId: 's', windowSize: 5 })
process.stdout.write(JSON.stringify(await session.window()))
store.close()
`,
    )
    const child = spawnSync('npx', ['tsx', script], { encoding: 'utf8' })
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual(mine)
    // And the restarted session carries on from it.
    const again = ledgerSession({ store: openContextStore(file), sessionId: 's', windowSize: 5 })
    expect(await again.window()).toEqual(mine)
    again.ledger.store.close()
  })

  it('refuses a tool result whose call the session never made, writing nothing', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's' })
    await session.append([{ role: 'user', content: 'hi' }])
    const orphan: ModelMessage = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'nope', toolName: 'x', output: { type: 'text', value: 'v' } },
      ],
    }
    const error = await refusal(session.append([{ role: 'assistant', content: 'ok' }, orphan]))
    expect(error.path).toBe('[1].content[0].toolCallId')
    expect(session.ledger.history().length).toBe(1)
  })

  it('refuses what modelMessageSchema refuses, and a system message, with a path', async () => {
    const session = ledgerSession({ store: dir.open(), sessionId: 's' })
    const bad = await refusal(
      session.append([
        { role: 'user', content: [{ type: 'bogus', text: 'x' }] },
      ] as unknown as ModelMessage[]),
    )
    expect(bad.path).toMatch(/^\[0\]/)
    const system = await refusal(session.append([{ role: 'system', content: 'be brief' }]))
    expect(system.path).toBe('[0].role')
    expect(system.message).toContain('instructions')
    expect(session.ledger.history().length).toBe(0)
  })

  it('summarizes with an AI SDK model, folding what is over the limits', async () => {
    const prompts: Parameters<typeof promptTokens>[0][] = []
    const session = ledgerSession({
      store: dir.open(),
      sessionId: 's',
      windowSize: 6,
      summarize: { model: textModel('SUMMARY: numbers looked up', prompts) },
    })
    for (let i = 0; i < 8; i++)
      await session.append([
        { role: 'user', content: `question ${i}` },
        { role: 'assistant', content: `answer ${i}` },
      ])
    const window = await session.window()
    expect(window.length).toBeLessThanOrEqual(6)
    expect(JSON.stringify(window)).toContain('SUMMARY: numbers looked up')
    expect(session.ledger.summaries().length).toBeGreaterThan(0)
    expect(JSON.stringify(prompts[0])).toContain('You condense the earlier part of a conversation')
    const before = session.ledger.summaries().length
    const folded = await session.summarize({ preserveRecentMessages: 2 })
    expect(folded.summarized).toBeGreaterThan(0)
    expect(session.ledger.summaries().length).toBe(before + 1)
  })
})
