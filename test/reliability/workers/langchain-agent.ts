/**
 * LangChain's real `createAgent` with `ledgerMiddleware` over one ledger file:
 * `node langchain-agent.mjs --path <file> --thread <id> --name <name> --turns <n> [--from <t>] [--tag <tag>]
 * [--seed <n>] [--wait] [--pin] [--stall <kind>:<k>] [--print-first] [--checkpoint <file> [--keep-state]
 * [--resume]]`. Turn `t` invokes the agent on thread `<id>` with the HumanMessage `<name> prompt <t>` (id
 * `<tag>.human.<t>`); the scripted model (the adapter tests' `ScriptedChatModel`, its ids prefixed with
 * `<tag>.` so no other process reuses one) makes two parallel `lookup` calls, then one, then answers —
 * three model calls a turn. With `--pin` the process's first call pins the message the model sees at
 * position 0 (`pin_message`, the middleware's own tool) in place of its second lookup. The tool waits a
 * few random milliseconds, so writers sharing the thread interleave. Every model input is checked: tool
 * calls paired with their results, the provider's token limit kept.
 *
 * `--stall <kind>:<k>` makes the process print `stall <kind> <t> <at>` (`at`: the call `<n>.<k>`, or the model call `<n>`) and wait to be killed at the `k`-th
 * (from 1) occasion of `kind`: `tool` — a lookup started (its call stored, its result never made);
 * `answered` — the model answered, before the ledger's `afterModel` stored it; `stored` — after it did.
 *
 * `--checkpoint <file>` runs the agent under LangGraph's `SqliteSaver` on that file (with `--keep-state`,
 * `keepStateToWindow`; `--durability sync` makes LangGraph write each step's checkpoint before the next
 * step starts — by default it writes them while the next runs); `--resume` makes the first invocation `invoke(null)` — LangGraph resuming the
 * thread's interrupted run from its checkpoint, reported as turn `resume` — before the turns. Lines: `tool <t> <n>.<k>`, `ok <t>`,
 * `state <t> <messages in the graph state>`, `invalid <t> <problems>`, `fail <t> <code> <message>`,
 * `first <json>` (with `--print-first`: the first model input, as `toDict()`s), then `done`. `--window`
 * prints `window <json>` (the thread's window, as application code reads it) and exits.
 */
import { parseArgs } from 'node:util'
import { HumanMessage, type BaseMessage } from '@langchain/core/messages'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { createAgent, createMiddleware } from 'langchain'
import { openContextStore } from '../../../src/index.js'
import { ledgerMiddleware } from '../../../src/adapters/langchain/index.js'
import { conversation, dicts } from '../../adapters/langchain/helpers.js'
import { inputProblems, lookupTool, turnModel } from './langchain-script.js'
import { LANGCHAIN_LIMITS, report, rng } from './worker-kit.js'

const { values: args } = parseArgs({
  options: {
    path: { type: 'string' },
    thread: { type: 'string' },
    name: { type: 'string', default: 'agent' },
    tag: { type: 'string' },
    turns: { type: 'string', default: '1' },
    from: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    wait: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    stall: { type: 'string' },
    'print-first': { type: 'boolean', default: false },
    checkpoint: { type: 'string' },
    'keep-state': { type: 'boolean', default: false },
    resume: { type: 'boolean', default: false },
    durability: { type: 'string', default: 'async' },
    window: { type: 'boolean', default: false },
  },
})
if (args.path === undefined || args.thread === undefined)
  throw new Error('usage: --path <file> --thread <id>')

const store = openContextStore(args.path)
const durability = args.durability === 'sync' ? 'sync' : 'async'
const thread = { configurable: { thread_id: args.thread }, durability } as const
const mw = ledgerMiddleware({
  store,
  ...LANGCHAIN_LIMITS,
  keepStateToWindow: args['keep-state'],
  tools: true,
})

if (args.window) {
  report('window', JSON.stringify(dicts(await mw.session(args.thread).window())))
  store.close()
  process.exit(0)
}

const { name } = args
const tag = args.tag ?? name
const random = rng(Number(args.seed))
let turn = Number(args.from)
const [stallKind, stallAt] = (args.stall ?? ':0').split(':')
const seen = new Map<string, number>()

/** Prints `stall` and waits to be killed at the `--stall` occasion. */
async function maybeStall(kind: string, at: string): Promise<void> {
  const count = (seen.get(kind) ?? 0) + 1
  seen.set(kind, count)
  if (kind !== stallKind || count !== Number(stallAt)) return
  report('stall', kind, turn, at)
  await new Promise(() => setInterval(() => {}, 1000))
}

const lookup = lookupTool(tag, async (n, k) => {
  report('tool', turn, `${n}.${k}`)
  await maybeStall('tool', `${n}.${k}`)
  await new Promise((resolve) => setTimeout(resolve, random.int(2, 20)))
})
const model = turnModel(tag, args.pin)

// `afterModel` hooks run from the last middleware to the first: `Answered` runs before the ledger's
// stores the model's message, `Stored` after.
const stallAfterModel = (hook: string) =>
  createMiddleware({
    name: hook,
    afterModel: () => maybeStall(hook.toLowerCase(), String(model.outputs.length - 1)),
  })
const checkpointer = args.checkpoint === undefined ? undefined : SqliteSaver.fromConnString(args.checkpoint)
const agent = createAgent({
  model,
  tools: [lookup],
  middleware: [stallAfterModel('Stored'), mw, stallAfterModel('Answered')],
  ...(checkpointer === undefined ? {} : { checkpointer }),
})

/** A model input in brief, for a report: each message's type, id and calls or call answered. */
const summary = (input: readonly BaseMessage[]): string[] =>
  conversation(input).map((m) => {
    const d = m.toDict().data as { id?: string; tool_call_id?: string; tool_calls?: { id?: string }[] }
    const calls = d.tool_calls?.map((c) => c.id).join(',') ?? d.tool_call_id ?? ''
    return `${m.type}:${d.id ?? ''}${calls === '' ? '' : `>${calls}`}`
  })

/** Reports a turn's model inputs that a provider would refuse. */
function checkInputs(from: number): void {
  for (const input of model.inputs.slice(from)) {
    const problems = inputProblems(input)
    if (problems.length > 0) report('invalid', turn, problems.join('; '), JSON.stringify(summary(input)))
  }
}

/** Runs one invocation, reporting its outcome under `label` (its turn, or `resume`). */
async function invoke(input: { messages: BaseMessage[] } | null, label: string | number): Promise<void> {
  const before = model.inputs.length
  try {
    const state = await agent.invoke(input, thread)
    report('state', label, state.messages.length)
    report('ok', label)
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause
    const code = (error as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code ?? 'none'
    const message = error instanceof Error ? error.message : JSON.stringify(error)
    report('fail', label, code, message.replaceAll('\n', ' '))
  }
  checkInputs(before)
  if (args['print-first'] && before === 0)
    report('first', JSON.stringify(dicts(conversation(model.inputs[0] ?? []))))
}

if (args.wait) {
  report('ready')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdin.pause()
}
if (args.resume) await invoke(null, 'resume')
const last = Number(args.from) + Number(args.turns)
for (; turn < last; turn++)
  await invoke(
    { messages: [new HumanMessage({ content: `${name} prompt ${turn}`, id: `${tag}.human.${turn}` })] },
    turn,
  )
store.close()
report('done')
