/**
 * Crash-test worker for the Strands adapter: a real `Agent` with the ledger's manager
 * (`durability: 'invocation'`, the default) runs invocations until the parent SIGKILLs it. Each invocation
 * is a prompt, one to three tool rounds whose tool sleeps a few ms, and an answer.
 *
 * Protocol (stdout, one line each): `R` ready (the session restored); `S <prompt>` an invocation about to
 * start; `I <prompt>` an invocation whose `invoke()` returned. Usage: strands-crash-agent <db> <sessionId> <seed> <run>
 */
import { Agent, tool } from '@strands-agents/sdk'
import { z } from 'zod'
import { openContextStore } from '../../../src/index.js'
import { PersistentConversationManager } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { invalidity } from '../../helpers/provider-validity.js'
import { report, rng } from './worker-kit.js'

const [path, sessionId, seedArg, runArg] = process.argv.slice(2)
if (path === undefined || sessionId === undefined || seedArg === undefined || runArg === undefined)
  throw new Error('usage: strands-crash-agent <db> <sessionId> <seed> <run>')
const run = Number(runArg)
const r = rng(Number(seedArg) * 7919 + run)
// A worker the parent forgot about must not run forever.
setTimeout(() => process.exit(3), 60_000).unref()

const lookup = tool({
  name: 'lookup',
  description: 'Look something up',
  inputSchema: z.object({ q: z.string() }),
  callback: async ({ q }) => {
    await new Promise((resolve) => setTimeout(resolve, r.int(0, 8)))
    return `${q}: ${'r'.repeat(r.int(1, 300))}`
  },
})

/** Tool rounds per prompt, chosen when the prompt arrives. */
let rounds = 1
const model = new ScriptedModel({
  script: (call) => {
    const why = invalidity(call.messages)
    if (why !== undefined) throw new Error(`invalid conversation: ${why}`)
    const last = call.messages.at(-1)
    const prompt = last?.content[0]
    if (prompt !== undefined && prompt.type === 'textBlock') rounds = r.int(1, 3)
    const done = call.messages.filter((m) => m.content.some((b) => b.type === 'toolResultBlock'))
    if (last?.content.some((b) => b.type === 'toolResultBlock') && --rounds <= 0)
      return `answer after ${done.length} results`
    return [{ toolUse: { name: 'lookup', input: { q: `run ${run} call ${call.index}` } } }]
  },
})

const store = openContextStore(path)
const agent = new Agent({
  model,
  tools: [lookup],
  conversationManager: new PersistentConversationManager({ store, sessionId, windowSize: 12 }),
  printer: false,
})
await agent.initialize()
report('R')
for (let i = 0; ; i++) {
  const prompt = `run ${run} prompt ${i}`
  report('S', JSON.stringify(prompt))
  await agent.invoke(prompt)
  report('I', JSON.stringify(prompt))
}
