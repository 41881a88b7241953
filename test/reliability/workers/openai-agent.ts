/**
 * An OpenAI Agents SDK agent on a `LedgerSession` of one ledger file, run by the real `run()`:
 * `node openai-agent.mjs --path <file> --session <id> --name <name> --turns <n> [--from <t>] [--tag <tag>]
 * [--seed <n>] [--wait] [--stall-at <k>] [--print-first]`. Turn `t` runs `<name> prompt <t>`; the scripted model
 * (the adapter tests' `ToolLoopModel`, its ids prefixed with `<tag>.` so no other process reuses a call
 * id) calls the `lookup` tool twice, each after a reasoning item, then answers. The tool waits a few
 * random milliseconds, so writers sharing the session interleave their tool rounds; the first call of an
 * odd turn needs approval, so its run stops with the call stored and unanswered, and goes on (a new
 * `run()` on the approved state) a few milliseconds later — or never, at the `--stall-at`-th approval,
 * where the process waits to be killed. Every model input is
 * checked as a provider would. With `--wait` it prints `ready` once the session is open and starts on a
 * line on stdin, so the parent starts writers together whatever each process took to boot.
 *
 * Lines: `tool <t> <n>` when a tool call starts, `approve <t>` when a run stops for approval, `ok <t>` per finished turn, `invalid <t> <problems>`,
 * `fail <t> <code> <message>`, `first <json>` (the first model input, with `--print-first`), then `done`.
 * `--items` prints `items <json>` (the session's `getItems()`) and exits.
 */
import { parseArgs } from 'node:util'
import { Agent, run, setTracingDisabled, tool } from '@openai/agents'
import { z } from 'zod'
import { openContextStore } from '../../../src/index.js'
import { LedgerSession } from '../../../src/adapters/openai-agents/index.js'
import { providerProblems, ToolLoopModel } from '../../adapters/openai-agents/helpers.js'
import { report, rng } from './worker-kit.js'

/** The session's window limits: small, so the window moves on every turn. */
const AGENT_LIMITS = { windowSize: 12, tokenBudget: 1500 } as const

const { values: args } = parseArgs({
  options: {
    path: { type: 'string' },
    session: { type: 'string' },
    name: { type: 'string', default: 'agent' },
    tag: { type: 'string' },
    turns: { type: 'string', default: '1' },
    from: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    wait: { type: 'boolean', default: false },
    'stall-at': { type: 'string', default: '0' },
    'print-first': { type: 'boolean', default: false },
    items: { type: 'boolean', default: false },
  },
})
if (args.path === undefined || args.session === undefined)
  throw new Error('usage: --path <file> --session <id>')

// No exporter: tracing would warn on stderr that there is no API key.
setTracingDisabled(true)
const store = openContextStore(args.path)
const session = new LedgerSession({ store, sessionId: args.session, ...AGENT_LIMITS })

if (args.items) {
  report('items', JSON.stringify(await session.getItems()))
  store.close()
  process.exit(0)
}

const { name } = args
const tag = args.tag ?? name
const random = rng(Number(args.seed))
let turn = Number(args.from)

/** A few random milliseconds: a tool at work, a human approving. */
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, random.int(5, 30)))

const lookup = tool({
  name: 'lookup',
  description: 'Looks a number up',
  parameters: z.object({ n: z.number() }),
  // The first call of every odd turn waits for a human's approval: the run stops with the call stored
  // and no result, and resumes once approved.
  needsApproval: (_context, { n }) => Promise.resolve(n % 6 === 3),
  execute: async ({ n }) => {
    report('tool', turn, n)
    await pause()
    return `result ${tag}.${n} ${'lorem ipsum '.repeat(10)}`
  },
})
const model = new ToolLoopModel({ calls: 2, tool: 'lookup', reasoning: true, prefix: `${tag}.` })
const agent = new Agent({ name, instructions: 'Look things up.', model, tools: [lookup] })

if (args.wait) {
  report('ready')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdin.pause()
}
const last = Number(args.from) + Number(args.turns)
let approvals = 0
for (; turn < last; turn++) {
  const seen = model.inputs.length
  let failure: unknown
  try {
    let result = await run(agent, `${name} prompt ${turn}`, { session })
    while (result.interruptions.length > 0) {
      report('approve', turn)
      // A human who never answers: the process waits here until it is killed.
      if (++approvals === Number(args['stall-at'])) await new Promise(() => setInterval(() => {}, 1000))
      await pause()
      for (const interruption of result.interruptions) result.state.approve(interruption)
      result = await run(agent, result.state, { session })
    }
  } catch (error) {
    failure = error
  }
  for (const input of model.inputs.slice(seen)) {
    const problems = providerProblems(input)
    if (problems.length > 0) report('invalid', turn, problems.join('; '))
  }
  if (args['print-first'] && seen === 0) report('first', JSON.stringify(model.inputs[0] ?? null))
  if (failure === undefined) report('ok', turn)
  else {
    const code = (failure as { code?: string }).code ?? 'none'
    const message = failure instanceof Error ? failure.message : JSON.stringify(failure)
    report('fail', turn, code, message.replaceAll('\n', ' '))
  }
}
store.close()
report('done')
