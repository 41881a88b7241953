/**
 * A Strands agent handed a session that holds another framework's messages (an AI SDK session) refuses
 * it at once with FORMAT_MISMATCH, instead of giving the agent messages it cannot read; the session is
 * left as it was.
 */
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../../src/index.js'
import { useTempDir } from '../../helpers/temp-store.js'
import { ledgerAgent } from './helpers.js'

const dir = useTempDir('context-ledger-strands-format-')

describe('the Strands manager on a session of another format', () => {
  it('refuses it when attached, naming both formats, and writes nothing', async () => {
    const store = openContextStore(dir.file('ai.db'))
    store.append('s', [{ role: 'user', content: 'hello from the AI SDK' }], { format: 'ai-sdk/model' })
    const before = store.history('s')
    let thrown: unknown
    try {
      const { agent } = ledgerAgent({ store, sessionId: 's', windowSize: 10 })
      await agent.invoke('hi')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'FORMAT_MISMATCH', sessionId: 's' })
    expect((thrown as Error).message).toMatch(/'ai-sdk\/model'.*'strands'/)
    expect(store.history('s')).toEqual(before)
    store.close()
  })
})
