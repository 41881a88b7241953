/**
 * A process of its own for branch-restart.test.ts: opens a ledger (a SQLite file or a PostgreSQL
 * connection string), restarts a Strands agent on the session named (a branch, say) with the scripted
 * assistant, and prints one JSON line: `agent.messages` right after `initialize()`, then after the prompts
 * given, each as the ledger stores messages.
 *
 *   node --import tsx test/adapters/strands/branch-worker.ts <location> <sessionId> <windowSize> [prompt…]
 */
import { Agent } from '@strands-agents/sdk'
import { PersistentConversationManager, pinMessageTool } from '../../../src/adapters/strands/index.js'
import { ScriptedModel } from '../../../examples/strands-scripted-model.js'
import { coreStoreOf, openLedger } from '../../helpers/ledger-open.js'
import { assistantScript, json, lookupTools } from './helpers.js'

const [location, sessionId, windowSize, ...prompts] = process.argv.slice(2)
if (location === undefined || sessionId === undefined || windowSize === undefined)
  throw new Error('usage: branch-worker <location> <sessionId> <windowSize> [prompt…]')
const ledger = await openLedger(location)
const agent = new Agent({
  model: new ScriptedModel({ script: assistantScript('w-') }),
  tools: [...lookupTools(), pinMessageTool],
  conversationManager: new PersistentConversationManager({
    store: coreStoreOf(ledger),
    sessionId,
    windowSize: Number(windowSize),
  }),
  printer: false,
})
await agent.initialize()
const restored = json(agent.messages)
for (const prompt of prompts) await agent.invoke(prompt)
console.log(JSON.stringify({ restored, after: json(agent.messages) }))
await ledger.close()
