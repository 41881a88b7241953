/**
 * `npm run demo -- --ai-sdk`: a long Vercel AI SDK agent session kept by `context-ledger/ai-sdk`, offline.
 * A scripted model (`MockLanguageModelV4`, examples/ai-sdk-demo-model.ts) plays an on-call ops agent:
 * each turn is one `generateText` call with tools, a multi-step tool loop, some large tool results. The
 * session (`ledgerSession`) archives every step, gives each step a window within `tokenBudget`, and folds
 * what leaves into summaries the same model writes. Then the file is closed and a second process opens
 * it and gets the same window; the agent goes on, and recalls a fact that left its window long ago. Every
 * number printed comes from the SQLite file or from what the model was given.
 *
 *   npx tsx examples/ai-sdk-demo.ts                   # 36 turns into a temp file, removed at the end
 *   npx tsx examples/ai-sdk-demo.ts --turns 60 --db ./ops.db   # the file is kept
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { LedgerSession } from '../src/adapters/ai-sdk/index.js'
import { printArchive, printCli, printRecall, printSummaries } from './ai-sdk-demo-report.js'
import {
  clip,
  fingerprint,
  int,
  openSession,
  QUESTION,
  request,
  runTurn,
  SESSION_ID,
  sizeOf,
  TOKEN_BUDGET,
  WINDOW_SIZE,
  type TurnResult,
} from './ai-sdk-demo-agent.js'
import { opsModel, type OpsModel } from './ai-sdk-demo-model.js'

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '36' },
    db: { type: 'string' },
    // `npm run demo -- --ai-sdk` reaches this file through examples/strands-demo.ts.
    'ai-sdk': { type: 'boolean' },
  },
})
const turns = Number(args.turns)
if (!Number.isInteger(turns) || turns < 12) throw new Error('--turns takes an integer of at least 12')

/** One line for a turn: the request, the tool calls, the largest prompt, the window after, new summaries. */
async function turnLine(
  turn: number,
  session: LedgerSession,
  ops: OpsModel,
  text: string,
): Promise<TurnResult> {
  const calls = ops.calls.length
  const summaries = session.ledger.summaries().length
  const r = await runTurn(session, ops.model, text)
  const largest = Math.max(...ops.calls.slice(calls).map((c) => (c.kind === 'agent' ? c.tokens : 0)))
  const tools = [...new Set(r.toolCalls.map((c) => c.name))]
  const after = sizeOf(await session.window())
  const folded = session.ledger.summaries().length - summaries
  console.log(
    `  turn ${String(turn).padStart(2)}  ${clip(`"${text}"`, 44).padEnd(44)}  ${r.steps} step${r.steps === 1 ? ' ' : 's'}` +
      ` ${(tools.join(', ') || 'no tools').padEnd(26)} largest prompt ${int(largest).padStart(5)}` +
      `  window ${String(after.messages).padStart(2)} msgs ${int(after.tokens).padStart(5)} tok` +
      (folded > 0 ? `  +${folded} summar${folded === 1 ? 'y' : 'ies'}` : ''),
  )
  return r
}

/** The agent's budget held: the largest prompt of the agent loop, and the refusals. */
function printBudget(ops: OpsModel): void {
  const agent = ops.calls.filter((c) => c.kind === 'agent')
  const largest = Math.max(...agent.map((c) => c.tokens))
  const summary = ops.calls.filter((c) => c.kind === 'summary')
  console.log(
    `  the model  ${int(agent.length)} agent calls; the largest prompt it got was ${int(largest)} tokens, within the ${int(TOKEN_BUDGET)}-token budget: ${largest <= TOKEN_BUDGET ? 'yes' : 'NO'}; it refuses a prompt over ${int(TOKEN_BUDGET)} and refused ${ops.refused.length}`,
  )
  console.log(
    `             + ${int(summary.length)} calls asking it for a summary (the ledger's summarization prompt, the messages to fold)`,
  )
}

/** Process 1: the session's first turns. */
async function firstRun(file: string): Promise<string> {
  const ops = opsModel({ contextLimit: TOKEN_BUDGET, idPrefix: 'p1' })
  const { store, session } = openSession(file, ops.model)
  console.log(`Process 1 (pid ${process.pid}): ${turns - 5} turns, each one generateText call with tools`)
  for (let turn = 0; turn < turns - 5; turn++) await turnLine(turn, session, ops, request(turn))
  console.log('')
  printBudget(ops)
  const window = await session.window()
  printArchive(store, session, window)
  store.close()
  return fingerprint(window)
}

/** The restart: a second process, then this one, open the file again and read the window. */
function restart(file: string, before: string): boolean {
  console.log(`\nRestart: process 1 closed the file (window fingerprint ${before}). A new process opens it:`)
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL('./ai-sdk-demo-resume.ts', import.meta.url)), file, before],
    { stdio: 'inherit' },
  )
  return child.status === 0
}

/** After the restart: a new store and session go on, recall a fact, and keep what they pinned. */
async function goOn(file: string, before: string): Promise<boolean> {
  const ops = opsModel({ contextLimit: TOKEN_BUDGET, idPrefix: 'p1b' })
  const { store, session } = openSession(file, ops.model)
  const same = fingerprint(await session.window()) === before
  console.log(
    `  process 1 opens it again too (new store, new ledgerSession): the same window: ${same ? 'yes' : 'NO'}`,
  )
  console.log('\nThe agent goes on, and is asked about something it was told at the start:')
  const start = turns - 5
  const ask = await turnLine(start, session, ops, QUESTION)
  for (let turn = start + 1; turn < turns; turn++) await turnLine(turn, session, ops, request(turn))
  console.log('')
  printBudget(ops)
  const recalled = printRecall(store, session, ask)
  printSummaries(session)
  console.log('\nAt the end:')
  printArchive(store, session, await session.window())
  store.close()
  return same && recalled && ops.refused.length === 0
}

const given = args.db
const dir = given === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-ai-sdk-demo-')) : undefined
const file = given ?? join(dir as string, 'ops.db')
if (given !== undefined) for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true })
console.log(
  `An AI SDK agent session, offline: generateText + ledgerSession (context-ledger/ai-sdk), a scripted ops model.\n` +
    `Ledger ${file}, session "${SESSION_ID}"; the window holds at most ${WINDOW_SIZE} messages and ${int(TOKEN_BUDGET)} tokens.\n` +
    `A token here is 4 characters of a message's JSON: the session (tokenCounter) and the model count the same way.\n` +
    `Each turn below: the request, the model's steps and the tools it called, the largest prompt it got (tokens),\n` +
    `the window after the turn, and the summaries written as older messages were folded out of it.\n`,
)
const before = await firstRun(file)
const restarted = restart(file, before)
const ok = (await goOn(file, before)) && restarted
printCli(file, SESSION_ID, dir !== undefined)
if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
if (!ok) process.exitCode = 1
