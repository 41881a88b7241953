/**
 * The Strands integration in one screen: copy this into your project. It runs offline with the scripted
 * model; set CONTEXT_LEDGER_USE_BEDROCK=1 (and AWS credentials) to talk to Amazon Bedrock instead.
 *
 *   npx tsx examples/strands-agent.ts
 */
import { Agent, BedrockModel, tool } from '@strands-agents/sdk'
import type { Model } from '@strands-agents/sdk'
import { z } from 'zod'
// In your project: import { openContextStore } from 'context-ledger'
import { openContextStore } from '../src/index.js'
// In your project: import { PersistentConversationManager, pinMessageTool } from 'context-ledger/strands'
import { PersistentConversationManager, pinMessageTool } from '../src/adapters/strands/index.js'
import { ScriptedModel } from './strands-scripted-model.js'

const getWeather = tool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  callback: ({ city }) => `${city}: 18°C, light rain`,
})

function model(): Model {
  if (process.env.CONTEXT_LEDGER_USE_BEDROCK === '1')
    // A real provider: any Strands model works the same way.
    return new BedrockModel({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', region: 'us-east-1' })
  return new ScriptedModel({
    script: [
      [{ toolUse: { name: 'pin_message', input: { index: 0, reason: 'the user’s trip plan' } } }],
      'Pinned your plan. What next?',
      [{ toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } }],
      'Lisbon: 18°C with light rain — pack a jacket.',
    ],
  })
}

const store = openContextStore(process.env.CONTEXT_LEDGER_DB ?? ':memory:') // a file path in real use
const agent = new Agent({
  model: model(),
  tools: [pinMessageTool, getWeather],
  conversationManager: new PersistentConversationManager({
    store,
    sessionId: 'trip-planner',
    windowSize: 40,
  }),
  printer: false,
})
// Restores the session into agent.messages now (the first invoke would do it too): Strands hands the
// manager its agent only in initialize(), so agent.messages is empty until then.
await agent.initialize()

await agent.invoke('I am planning a week in Lisbon in March. Please keep that in mind.')
const result = await agent.invoke('What is the weather there right now?')
console.log(result.toString())

// Every message is in the store; agent.messages is the window it computed.
console.log(store.session('trip-planner'))
console.log(
  store
    .pinnedMessages({ sessionId: 'trip-planner' })
    .map((p) => ({ seq: p.seq, actor: p.actor, reason: p.reason })),
)
store.close()
