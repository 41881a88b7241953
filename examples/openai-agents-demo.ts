/**
 * `npm run demo -- --openai-agents`: an OpenAI Agents SDK agent (`@openai/agents`) whose session is a
 * `LedgerSession` (`context-ledger/openai-agents`), offline. A scripted support model
 * (examples/openai-agents-demo-model.ts) answers through the SDK's real `run()` loop, calling a tool each
 * turn; the session keeps every item in a SQLite file and hands each run the window. Then the store is
 * closed and opened again (the same window), the agent recalls with `search_history` a fact that left its
 * window, a reply is taken back with `popItem()` (kept in an abandoned branch), and a compaction item
 * replaces what the model sees.
 * Last, what the window holds against the archive, and the CLI commands to look inside the file. Every
 * number printed comes from the file or from what the model was given.
 *
 *   npx tsx examples/openai-agents-demo.ts                    # 20 turns into a temp file, removed at the end
 *   npx tsx examples/openai-agents-demo.ts --turns 40 --db ./support.db   # the file is kept
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { run, setTracingDisabled, type AgentInputItem } from '@openai/agents'
import type { ContextStore } from '../src/index.js'
import {
  CONTEXT_LIMIT,
  FACT,
  open,
  SESSION_ID,
  TOKEN_BUDGET,
  WINDOW_SIZE,
  type Opened,
} from './openai-agents-demo-agent.js'
import { SupportModel, tokensOf } from './openai-agents-demo-model.js'

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    db: { type: 'string' },
    // `npm run demo -- --openai-agents` reaches this file through examples/strands-demo.ts.
    'openai-agents': { type: 'boolean' },
  },
})
const turns = Number(args.turns)
setTracingDisabled(true) // offline: no trace export
if (!Number.isInteger(turns) || turns < 10) throw new Error('--turns takes an integer of at least 10')

const int = (n: number) => n.toLocaleString('en-US')
const archived = (store: ContextStore) => store.session(SESSION_ID)?.messageCount ?? 0
const fingerprint = (items: AgentInputItem[]) =>
  createHash('sha256').update(JSON.stringify(items)).digest('hex').slice(0, 16)
const textOf = (item: AgentInputItem | undefined) =>
  JSON.stringify((item as { content?: unknown } | undefined)?.content ?? item)

/** One run: the prompt, the model calls and their largest input, the window and the archive after. */
async function turn(o: Opened, model: SupportModel, n: number, prompt: string): Promise<string> {
  const calls = model.calls.length
  const result = await run(o.agent, prompt, { session: o.session })
  const mine = model.calls.slice(calls)
  const largest = Math.max(...mine.map((c) => c.tokens))
  const shown = await o.session.getItems()
  console.log(
    `  turn ${String(n).padStart(2)}  ${`"${prompt.slice(0, 40)}"`.padEnd(42)} ${mine.length} model calls, ` +
      `largest input ${int(largest).padStart(5)} tok   window ${String(shown.length).padStart(2)} items ` +
      `${int(tokensOf(shown)).padStart(5)} tok   archive ${String(archived(o.store)).padStart(3)} rows`,
  )
  return String(result.finalOutput)
}

/** The window against the archive, by item type. */
async function printWindowAndArchive(o: Opened): Promise<void> {
  const kind = (i: unknown) => {
    const { type, role } = i as { type?: string; role?: string }
    const notes = (i as { providerData?: { contextLedger?: unknown } }).providerData?.contextLedger
    if (notes !== undefined && type === 'unknown') return 'withdrawal marker'
    return type === undefined || type === 'message' ? `${role} message` : type
  }
  const tally = (items: unknown[]) => {
    const counts = new Map<string, number>()
    for (const i of items) counts.set(kind(i), (counts.get(kind(i)) ?? 0) + 1)
    return [...counts].map(([k, c]) => `${c} ${k}`).join(', ')
  }
  const shown = await o.session.getItems()
  const history = (await o.session.history({ limit: 100_000 })).map((e) => e.message)
  console.log(
    `  window  (getItems(): what the next run gives the model)  ${shown.length} items: ${tally(shown)}`,
  )
  console.log(
    `  archive (history(): every item ever added, nothing deleted) ${history.length} rows: ${tally(history)}`,
  )
  console.log(
    '  (the window starts at the compaction item; the ledger summary standing for what it replaced, and every original, are in the archive: `window --explain` shows it)',
  )
}

/** The CLI commands that show the same from the file. */
function printCli(file: string, removed: boolean): void {
  const f = removed ? 'support.db' : file
  console.log(
    '\nLook inside the file with the CLI (in this repository `npx tsx src/cli/main.ts` runs it unbuilt):',
  )
  console.log(
    `  npx context-ledger window ${f} ${SESSION_ID} --explain    # each window item and why it is there`,
  )
  console.log(`  npx context-ledger history ${f} ${SESSION_ID}              # every item, withdrawn ones too`)
  console.log(`  npx context-ledger search ${f} "refund code" --session ${SESSION_ID}`)
  console.log(
    `  npx context-ledger sessions ${f}                          # items, window, tokens, summaries`,
  )
  if (removed) console.log('(this run used a temp file, removed now: add `--db support.db` to keep it)')
}

/** The story; true when every claim it prints held. */
async function main(file: string): Promise<boolean> {
  const model = new SupportModel(CONTEXT_LIMIT)
  let o = open(file, model)
  console.log(`Process ${process.pid}: ${turns} runs, each run(agent, prompt, { session }) with a tool call`)
  await turn(o, model, 0, FACT)
  for (let n = 1; n < turns; n++) await turn(o, model, n, `Where is order A-${1000 + n}?`)
  const largest = Math.max(...model.calls.map((c) => c.tokens))
  const whole = tokensOf((await o.session.history({ limit: 100_000 })).map((e) => e.message))
  console.log(
    `\n  the largest input the model got: ${int(largest)} tokens (its limit ${int(CONTEXT_LIMIT)}); refused: ${model.refused}` +
      `\n  sent whole (what MemorySession does), the archive would be a ${int(whole)}-token input`,
  )

  const before = fingerprint(await o.session.getItems())
  o.store.close()
  o = open(file, model)
  const same = fingerprint(await o.session.getItems()) === before
  console.log(
    `\nRestart: the store closed and opened again, a new LedgerSession: the same window (${before}): ${same ? 'yes' : 'NO'}`,
  )

  const first = JSON.stringify(await o.session.getItems()).includes('RF-7731')
  console.log(
    `\nRecall: the first turn is in the window: ${first ? 'yes' : 'no'}; the agent is asked about it:`,
  )
  const answer = await turn(o, model, turns, 'What was my refund code?')
  const recalled = answer.includes('RF-7731')
  console.log(`  answer: "${answer}" (search_history found it in the archive: ${recalled ? 'yes' : 'NO'})`)

  await turn(o, model, turns + 1, 'Please cancel order A-1002.')
  const popped = await o.session.popItem()
  const gone = !JSON.stringify(await o.session.getItems()).includes(textOf(popped))
  const branch = (await o.session.branches()).findLast((b) => b.kind === 'abandoned')
  const kept = o.store.history(branch?.sessionId ?? SESSION_ID, { fromSeq: (branch?.forkSeq ?? 0) + 1 })
  console.log(
    `\npopItem(): took back ${textOf(popped)}; the window no longer shows it: ${gone ? 'yes' : 'NO'};` +
      ` it is kept in the abandoned branch "${branch?.sessionId ?? '?'}" (${kept.length} row)`,
  )

  await o.session.replaceHistoryWithCompaction([
    { type: 'compaction', id: 'cmp_demo', encrypted_content: 'gAAAAB…(opaque to everyone but the provider)' },
  ])
  const summary = o.store.summaries(SESSION_ID)[0]
  console.log(
    `\nCompaction: replaceHistoryWithCompaction([compaction]) appended the item and folded the ${summary?.messageCount ?? 0} rows the window held into summary #${summary?.id ?? '?'} (model "${summary?.model ?? '?'}"); they stay in the archive`,
  )
  const calls = model.calls.length
  await turn(o, model, turns + 2, `Where is order A-${1000 + turns}?`)
  const next = model.calls[calls]
  console.log(
    `  the run's first model call got ${next?.items ?? 0} items: the runner starts from the compaction item, then the prompt`,
  )
  console.log('\nAt the end:')
  await printWindowAndArchive(o)
  o.store.close()
  return same && !first && recalled && gone && model.refused === 0 && largest <= CONTEXT_LIMIT
}

const given = args.db
const dir =
  given === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-openai-agents-demo-')) : undefined
const file = given ?? join(dir as string, 'support.db')
if (given !== undefined) for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true })
console.log(
  `An OpenAI Agents session, offline: run() + LedgerSession (context-ledger/openai-agents), a scripted support model.\n` +
    `Ledger ${file}, session "${SESSION_ID}"; the window holds at most ${WINDOW_SIZE} items and ${int(TOKEN_BUDGET)} tokens.\n`,
)
const ok = await main(file)
printCli(file, dir !== undefined)
if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
if (!ok) process.exitCode = 1
