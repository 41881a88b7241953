/**
 * One of several Strands agents sharing a session of one ledger file: `node shared-agent.mjs <path>
 * <sessionId> <name> <turns> <seed> <startAt>`; all agents wait until the time `startAt` (ms since the
 * epoch), so their turns overlap whatever each process took to boot. Every turn asks for a tool call whose tool waits a random few
 * milliseconds, so the writers' tool rounds interleave in the file. Each model call checks that the
 * conversation it is given is valid for a provider. Lines: `ok <turn>`, `fail <turn> <code> <message>`,
 * `invalid <turn> <why>`, then `done`.
 */
import { Agent, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import { openContextStore } from '../../../src/index.js'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { report, rng } from './worker-kit.js'
import { invalidity } from '../../helpers/provider-validity.js'

const [path, sessionId, name, turnsArg, seedArg, startAt] = process.argv.slice(2)
if (path === undefined || sessionId === undefined || name === undefined)
  throw new Error('usage: path session name turns seed')
const turns = Number(turnsArg)
const random = rng(Number(seedArg))
let turn = 0

const lookup = tool({
  name: 'lookup',
  description: 'Look something up',
  inputSchema: z.object({ q: z.string() }),
  callback: async ({ q }) => {
    await new Promise((resolve) => setTimeout(resolve, random.int(10, 40)))
    return `${q}: found`
  },
})

const model = new ScriptedModel({
  script: (call) => {
    const why = invalidity(call.messages)
    if (why !== undefined) report('invalid', turn, why)
    const last = call.messages.at(-1)
    if (last?.content.some((b) => b.type === 'toolResultBlock')) return `${name} answer ${turn}`
    return [
      {
        toolUse: {
          name: 'lookup',
          input: { q: `${name}-${turn}` },
          toolUseId: `${name}-${turn}-${call.index}`,
        },
      },
    ]
  },
})

const store = openContextStore(path)
const agent = new Agent({
  model,
  tools: [lookup],
  conversationManager: new PersistentConversationManager({ store, sessionId, windowSize: 16 }),
  printer: false,
})
await agent.initialize()
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())))
for (turn = 0; turn < turns; turn++) {
  try {
    await agent.invoke(`${name} prompt ${turn}`)
    report('ok', turn)
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'none'
    report('fail', turn, code, (error instanceof Error ? error.message : String(error)).replaceAll('\n', ' '))
  }
}
store.close()
report('done')
