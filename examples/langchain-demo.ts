/**
 * `npm run demo -- --langchain`: a LangChain `createAgent` agent with `ledgerMiddleware`
 * (`context-ledger/langchain`), offline. A scripted support model (examples/langchain-demo-model.ts)
 * answers through LangChain's real agent loop, looking orders up (several at once when asked about
 * several); the middleware stores every message of the thread in a SQLite file and gives each model call
 * the window, and LangGraph's `SqliteSaver` beside it keeps the graph state — cut to the window
 * (`keepStateToWindow`). Then a second process builds the agent again on the same files, resumes the same
 * window by thread id and recalls with `search_history` a fact that left it long before. Last, what the
 * model was given against what the archive holds, and the CLI commands to look inside the file. Every
 * number printed comes from the files or from what the model was given.
 *
 *   npx tsx examples/langchain-demo.ts                    # 20 turns into a temp directory, removed at the end
 *   npx tsx examples/langchain-demo.ts --turns 40 --db ./support.db   # the files are kept
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  answerOf,
  ask,
  checkpointFileOf,
  CONTEXT_LIMIT,
  FACT,
  fingerprint,
  int,
  onThread,
  open,
  tally,
  THREAD_ID,
  TOKEN_BUDGET,
  WINDOW_SIZE,
  type Opened,
} from './langchain-demo-agent.js'
import { SupportModel, tokensOf } from './langchain-demo-model.js'

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    db: { type: 'string' },
    // `npm run demo -- --langchain` reaches this file through examples/strands-demo.ts.
    langchain: { type: 'boolean' },
  },
})
const turns = Number(args.turns)
if (!Number.isInteger(turns) || turns < 10) throw new Error('--turns takes an integer of at least 10')

/** The prompt of turn `n`: every fourth asks about two orders (two tool calls in parallel). */
const promptOf = (n: number): string =>
  n === 0
    ? FACT
    : n % 4 === 3
      ? `Where are orders A-${1000 + n} and A-${2000 + n}?`
      : `Where is order A-${1000 + n}?`

/**
 * One turn, printed: its model calls and their largest input, the window, the graph state, the archive.
 *
 * @returns the answer and the largest input
 */
async function turn(o: Opened, model: SupportModel, n: number, prompt: string) {
  const before = model.calls.length
  const state = await ask(o, prompt)
  const mine = model.calls.slice(before)
  const largest = Math.max(...mine.map((c) => c.tokens))
  const session = o.store.session(THREAD_ID)
  console.log(
    `  turn ${String(n).padStart(2)}  ${`"${prompt.slice(0, 36)}"`.padEnd(38)} ${mine.length} model calls, ` +
      `largest input ${int(largest).padStart(5)} tok   window ${String(session?.windowMessages ?? 0).padStart(2)} msgs ` +
      `${int(session?.windowTokens ?? 0).padStart(5)} tok   graph state ${String(state.length).padStart(2)} msgs   ` +
      `archive ${String(session?.messageCount ?? 0).padStart(3)} msgs`,
  )
  return { answer: answerOf(state), largest }
}

/** Process 1: the turns, on a fresh pair of files; returns the window's fingerprint and whether it held. */
async function firstProcess(file: string): Promise<{ print: string; ok: boolean }> {
  const model = new SupportModel({ contextLimit: CONTEXT_LIMIT, idPrefix: 'p1-' })
  const o = open(file, model)
  console.log(
    `Process 1 (pid ${process.pid}): ${turns} turns, each agent.invoke(…, { configurable: { thread_id } })`,
  )
  for (let n = 0; n < turns; n++) await turn(o, model, n, promptOf(n))
  const largest = Math.max(...model.calls.map((c) => c.tokens))
  const archive = await o.ledger.session(THREAD_ID).history()
  console.log(
    `\n  the largest input the model got: ${int(largest)} tokens (its limit ${int(CONTEXT_LIMIT)}); refused: ${model.refused}` +
      `\n  sent whole (the graph state without the ledger), the archive would be a ${int(tokensOf(archive))}-token input`,
  )
  const print = fingerprint(await o.ledger.session(THREAD_ID).window())
  o.close()
  return { print, ok: model.refused === 0 && largest <= CONTEXT_LIMIT }
}

/** Process 2, in a process of its own: resumes the thread and recalls the first turn's fact. */
function secondProcess(file: string, print: string): boolean {
  console.log(
    `\nRestart: process 1 closed both files (window fingerprint ${print}). A new process opens them:`,
  )
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL('./langchain-demo-resume.ts', import.meta.url)), file, print],
    { stdio: 'inherit' },
  )
  return child.status === 0
}

/** What the model was last given, the graph state and the archive, from the files. */
async function printAtTheEnd(file: string): Promise<boolean> {
  const o = open(file, new SupportModel())
  const thread = o.ledger.session(THREAD_ID)
  const window = await thread.window()
  const archive = await thread.history()
  const state = ((await o.agent.graph.getState(onThread)).values as { messages?: unknown[] }).messages ?? []
  const session = o.store.session(THREAD_ID)
  console.log('\nAt the end:')
  console.log(
    `  window  (what the next model call is given)     ${String(window.length).padStart(3)} messages, ${int(session?.windowTokens ?? 0).padStart(6)} tokens: ${tally(window)}`,
  )
  console.log(
    `  archive (every message of the thread, kept)     ${String(archive.length).padStart(3)} messages, ${int(session?.totalTokens ?? 0).padStart(6)} tokens: ${tally(archive)}`,
  )
  console.log(
    `  graph state in ${checkpointFileOf(file).split('/').at(-1) ?? ''} (SqliteSaver)  ${String(state.length).padStart(3)} messages: the window and the last answer`,
  )
  const first = archive[0]?.text === FACT && !window.some((m) => m.text === FACT)
  console.log(
    `  the first message: in the archive, not in the window: ${first ? 'yes' : 'NO'} ("${FACT.slice(0, 40)}…")`,
  )
  o.close()
  return first && state.length <= WINDOW_SIZE + 4
}

/** The CLI commands that show the same from the file. */
function printCli(file: string, removed: boolean): void {
  const f = removed ? 'support.db' : file
  console.log(
    '\nLook inside the file with the CLI (in this repository `npx tsx src/cli/main.ts` runs it unbuilt):',
  )
  console.log(
    `  npx context-ledger window ${f} ${THREAD_ID} --explain    # each window message and why it is there`,
  )
  console.log(
    `  npx context-ledger history ${f} ${THREAD_ID}              # every message, calls and results`,
  )
  console.log(`  npx context-ledger search ${f} "refund code" --session ${THREAD_ID}`)
  console.log(
    `  npx context-ledger sessions ${f}                          # messages, window, tokens per thread`,
  )
  if (removed)
    console.log('(this run used a temp directory, removed now: add `--db support.db` to keep the files)')
}

const given = args.db
const dir = given === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-langchain-demo-')) : undefined
const file = given ?? join(dir as string, 'support.db')
if (given !== undefined)
  for (const f of [file, checkpointFileOf(file)])
    for (const s of ['', '-wal', '-shm']) rmSync(f + s, { force: true })
console.log(
  `A LangChain agent, offline: createAgent + ledgerMiddleware (context-ledger/langchain), a scripted support model.\n` +
    `Ledger ${file}, thread "${THREAD_ID}"; the window holds at most ${WINDOW_SIZE} messages and ${int(TOKEN_BUDGET)} tokens;\n` +
    `LangGraph's SqliteSaver keeps the graph state in ${checkpointFileOf(file)}, cut to the window.\n`,
)
const first = await firstProcess(file)
const resumed = secondProcess(file, first.print)
const end = await printAtTheEnd(file)
printCli(file, dir !== undefined)
if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
if (!(first.ok && resumed && end)) process.exitCode = 1
