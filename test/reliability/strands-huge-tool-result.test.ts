/**
 * A 17 MiB tool result must not wedge a Strands agent: the store cuts it to its string limit, records
 * the original size, and the agent goes on. Slow (it builds, validates and stores 17 MiB), so it runs
 * with the reliability suite.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_MESSAGE_LIMITS } from '../../src/index.js'
import {
  json,
  ledgerAgent,
  lookupReturning,
  recordingLogger,
  toolResultOf,
} from '../adapters/strands/helpers.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-rel-')

describe('a tool result over the string limit', () => {
  it('stores a 17 MiB tool result cut to the limit, its original size recorded', async () => {
    const store = dir.open()
    const big = `${'👍'.repeat(10)}${'x'.repeat(17 * 1024 * 1024)}`
    const { agent, manager } = ledgerAgent(
      { store, sessionId: 's', logger: recordingLogger() },
      { tools: [lookupReturning(() => big)] },
    )
    await agent.invoke('ask logs')
    await agent.invoke('thanks')

    const stored = manager.ledger.history()[2]?.message
    const text = toolResultOf(stored)?.text as string
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MESSAGE_LIMITS.maxStringLength)
    expect(text.startsWith('👍'.repeat(10))).toBe(true)
    expect(text).toMatch(/\n<truncated chars="\d+"\/>\n/)
    expect(stored?.metadata?.custom?.contextLedger).toStrictEqual({
      repaired: [
        {
          path: 'content[0].toolResult.content[0].text',
          problem: 'string-too-long',
          originalLength: big.length,
        },
      ],
    })
    expect(manager.ledger.history()).toHaveLength(6)
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
  })
})
