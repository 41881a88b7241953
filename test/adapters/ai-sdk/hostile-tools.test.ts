/**
 * The session's tools given input no model sends — a Proxy or getter that throws as it is read — answer
 * with an error text the model can read, as `pin_message` already did, never a raw throw.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ledgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { tempDir, type TempDir } from '../../helpers/temp-store.js'

let dir: TempDir
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => {
  dir.cleanup()
})

const call = { toolCallId: 'x', messages: [] }
const trap = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('trap')
      },
    },
  )

describe('the tools given unreadable input', () => {
  it.each(['search_history', 'read_history', 'pin_message'] as const)(
    '%s answers with an error text',
    async (name) => {
      const session = ledgerSession({ store: dir.open(), sessionId: 's' })
      await session.append([{ role: 'user', content: 'hello world' }])
      const execute = session.tools[name].execute as (input: unknown, options: unknown) => Promise<string>
      const text = await execute(trap(), call)
      expect(text).toMatch(new RegExp(`^Invalid ${name} input: it could not be read \\(trap\\)`))
    },
  )
})
