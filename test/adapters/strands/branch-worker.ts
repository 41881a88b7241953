/**
 * A process of its own for branch-restart.test.ts: opens a ledger file, restarts a Strands agent on the
 * session named (a branch, say) with the scripted assistant, and prints one JSON line: `agent.messages`
 * right after `initialize()`, then after the prompts given, each as the ledger stores messages.
 *
 *   node --import tsx test/adapters/strands/branch-worker.ts <file> <sessionId> <windowSize> [prompt…]
 */
import { Agent } from '@strands-agents/sdk'
import { openContextStore } from '../../../src/index.js'
import { PersistentConversationManager, pinMessageTool } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { assistantScript, json, lookupTools } from './helpers.js'

const [file, sessionId, windowSize, ...prompts] = process.argv.slice(2)
if (file === undefined || sessionId === undefined || windowSize === undefined)
  throw new Error('usage: branch-worker <file> <sessionId> <windowSize> [prompt…]')
const store = openContextStore(file, { mustExist: true })
const agent = new Agent({
  model: new ScriptedModel({ script: assistantScript('w-') }),
  tools: [...lookupTools(), pinMessageTool],
  conversationManager: new PersistentConversationManager({
    store,
    sessionId,
    windowSize: Number(windowSize),
  }),
  printer: false,
})
await agent.initialize()
const restored = json(agent.messages)
for (const prompt of prompts) await agent.invoke(prompt)
console.log(JSON.stringify({ restored, after: json(agent.messages) }))
store.close()
