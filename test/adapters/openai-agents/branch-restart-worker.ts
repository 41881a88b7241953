/**
 * The second process of `branches-run.test.ts`'s restart: opens the ledger at argv[2] (a SQLite file or a
 * PostgreSQL connection string), reads the branch argv[3] as a new `LedgerSession` would after a restart
 * (items, tree), runs one more turn on it through the SDK's `run()` with the scripted model, and prints
 * what it saw before and after, and the model's input, as JSON.
 */
import { Agent, run, tool } from '@openai/agents'
import { z } from 'zod'
import { LedgerSession } from '../../../src/adapters/openai-agents/index.js'
import { coreStoreOf, openLedger } from '../../helpers/ledger-open.js'
import { ToolLoopModel } from './helpers.js'

const [location, branchId, question] = process.argv.slice(2)
if (location === undefined || branchId === undefined || question === undefined)
  throw new Error('usage: branch-restart-worker <location> <branch> <question>')
const handle = await openLedger(location)
try {
  const session = new LedgerSession({ store: coreStoreOf(handle), sessionId: branchId, windowSize: 10_000 })
  const items = await session.getItems()
  const tree = await session.branches()
  const model = new ToolLoopModel({ calls: 1, tool: 'lookup', reasoning: true, prefix: 'w' })
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a number up',
    parameters: z.object({ n: z.number() }),
    execute: ({ n }) => `value ${n}`,
  })
  const agent = new Agent({ name: 'helper', instructions: 'Help.', model, tools: [lookup] })
  const result = await run(agent, question, { session })
  process.stdout.write(
    JSON.stringify({
      items,
      tree,
      output: String(result.finalOutput),
      inputs: model.inputs,
      after: await session.getItems(),
    }),
  )
} finally {
  await handle.close()
}
