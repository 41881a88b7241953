/**
 * `npm run demo`: a Strands `Agent` with context-ledger's conversation manager runs thousands of turns —
 * tool calls, large search results, pins made by the model itself — against a scripted model with a small
 * context window, so overflows happen and are recovered. Then the process ends and a new process (a real
 * child process) opens the same file with a new `Agent` and shows that it sees the same window, the same
 * pins, and can go on. Last, recall: in a new session the model searches and reads back facts that left
 * its window, and answers from them (`recall-demo.ts`). No network; every number below comes from the
 * SQLite file.
 *
 *   npx tsx examples/strands-demo.ts                 # 2,000 turns into a temp file
 *   npx tsx examples/strands-demo.ts --turns 500 --db ./demo.db
 *   npx tsx examples/strands-demo.ts --postgres       # on PostgreSQL (examples/postgres-demo.ts)
 *   npx tsx examples/strands-demo.ts --ai-sdk         # a Vercel AI SDK agent instead (examples/ai-sdk-demo.ts)
 *   npx tsx examples/strands-demo.ts --openai-agents  # an OpenAI Agents SDK agent (examples/openai-agents-demo.ts)
 *   npx tsx examples/strands-demo.ts --langchain      # a LangChain createAgent agent (examples/langchain-demo.ts)
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Agent, tool } from '@strands-agents/sdk'
import type { Message } from '@strands-agents/sdk'
import { z } from 'zod'
// In your project: import { estimateTokens, openContextStore } from 'context-ledger'
import { estimateTokens, openContextStore, type ContextStore } from '../src/index.js'
// In your project: import { PersistentConversationManager, pinMessageTool } from 'context-ledger/strands'
import { PersistentConversationManager, pinMessageTool } from '../src/adapters/strands/index.js'
import { printRecallDemo } from './recall-demo.js'
import { ScriptedModel, type ScriptedCall, type ScriptedReply } from './strands-scripted-model.js'

// `npm run demo -- --postgres`: the same story on PostgreSQL, workers sharing sessions (examples/postgres-demo.ts).
if (process.argv.includes('--postgres')) {
  await import('./postgres-demo.js')
  process.exit(process.exitCode ?? 0)
}
// `npm run demo -- --ai-sdk`: a Vercel AI SDK agent session with ledgerSession (examples/ai-sdk-demo.ts).
if (process.argv.includes('--ai-sdk')) {
  await import('./ai-sdk-demo.js')
  process.exit(process.exitCode ?? 0)
}
// `npm run demo -- --openai-agents`: an OpenAI Agents SDK run() loop on a LedgerSession (examples/openai-agents-demo.ts).
if (process.argv.includes('--openai-agents')) {
  await import('./openai-agents-demo.js')
  process.exit(process.exitCode ?? 0)
}
// `npm run demo -- --langchain`: a LangChain createAgent loop with ledgerMiddleware (examples/langchain-demo.ts).
if (process.argv.includes('--langchain')) {
  await import('./langchain-demo.js')
  process.exit(process.exitCode ?? 0)
}

const SESSION = 'acme-migration'
const WINDOW = 40
const CONTEXT_WINDOW_LIMIT = 4_000

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '2000' },
    db: { type: 'string' },
    // The second process: the file to reopen, and the window fingerprint the first one saw.
    resume: { type: 'string' },
    expect: { type: 'string' },
  },
})

// ---------------------------------------------------------------- the agent

const searchDocs = tool({
  name: 'search_docs',
  description: 'Searches the runbooks and returns the matching section',
  inputSchema: z.object({ query: z.string() }),
  callback: ({ query }) =>
    `Runbook section for "${query}":\n` +
    Array.from(
      { length: 60 },
      (_, i) => `  step ${i + 1}: check ${query} replica ${i} and record its lag`,
    ).join('\n'),
})

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Looks up a work order',
  inputSchema: z.object({ id: z.number().int() }),
  callback: ({ id }) => ({ id, status: id % 7 === 0 ? 'blocked' : 'done', owner: `team-${id % 5}` }),
})

function text(message: Message | undefined): string {
  const block = message?.content[0]
  return block !== undefined && block.type === 'textBlock' ? block.text : ''
}

/**
 * The "model": reads the last message like an assistant would. It pins by itself: the task at the start,
 * and each decision the user announces (it looks the decision up in the messages it sees).
 */
function script(call: ScriptedCall): ScriptedReply {
  const last = call.messages.at(-1)
  const result = last?.content.find((b) => b.type === 'toolResultBlock')
  if (result !== undefined)
    return result.status === 'error' ? 'That pin did not work; moving on.' : `Done (call ${call.index}).`
  const prompt = text(last)
  if (prompt.startsWith('Task:'))
    return [
      {
        toolUse: {
          name: 'pin_message',
          input: { index: call.messages.length - 1, reason: 'task definition' },
        },
      },
    ]
  if (prompt.startsWith('Decision:'))
    return [
      { toolUse: { name: 'pin_message', input: { index: call.messages.length - 1, reason: 'decision' } } },
    ]
  if (prompt.startsWith('Search '))
    return [{ toolUse: { name: 'search_docs', input: { query: prompt.slice(7) } } }]
  if (prompt.startsWith('Order '))
    return [{ toolUse: { name: 'lookup_order', input: { id: Number(prompt.slice(6)) } } }]
  return `Noted: ${prompt.slice(0, 60)}`
}

function prompt(turn: number): string {
  if (turn === 0)
    return 'Task: migrate ACME orders from MySQL 5.7 to Postgres 16 with under 5 minutes of downtime.'
  if (turn % 500 === 250) return `Decision: cut over wave ${turn / 250} on a Saturday, 02:00 UTC.`
  if (turn % 4 === 1) return `Search ${['replication', 'backfill', 'cutover', 'rollback'][(turn % 16) >> 2]}`
  if (turn % 4 === 2) return `Order ${turn}`
  return `Status update ${turn}: shard ${turn % 64} copied.`
}

function agentFor(
  store: ContextStore,
  model: ScriptedModel,
): { agent: Agent; manager: PersistentConversationManager } {
  const manager = new PersistentConversationManager({ store, sessionId: SESSION, windowSize: WINDOW })
  const agent = new Agent({
    model,
    tools: [searchDocs, lookupOrder, pinMessageTool],
    conversationManager: manager,
    systemPrompt: 'You are a database migration assistant.',
    printer: false,
  })
  return { agent, manager }
}

function preview(message: { content: readonly unknown[] } | undefined, length = 60): string {
  const block = message?.content[0] as { text?: unknown } | undefined
  const words = typeof block?.text === 'string' ? block.text : JSON.stringify(block)
  return words.length > length ? `${words.slice(0, length)}…` : words
}

function fingerprint(messages: readonly Message[]): string {
  return createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 16)
}

// ---------------------------------------------------------------- reporting

function report(store: ContextStore, manager: PersistentConversationManager, file: string): void {
  const session = store.session(SESSION)
  if (session === undefined) return
  const window = manager.ledger.window()
  const shownTokens = window.reduce((n, m) => n + estimateTokens(m), 0)
  let truncated = 0
  for (let from = 0; from < session.messageCount; from += 1000)
    for (const e of manager.ledger.history({ fromSeq: from, limit: 1000 }))
      if (e.windowMessage !== undefined) truncated++
  const mb = (f: string): string => `${((existsSync(f) ? statSync(f).size : 0) / 1024 / 1024).toFixed(1)} MB`
  console.log(
    `  archive     ${session.messageCount.toLocaleString('en-US')} messages, ${session.totalTokens.toLocaleString('en-US')} tokens, ${mb(file)} file + ${mb(`${file}-wal`)} WAL (nothing deleted)`,
  )
  console.log(
    `  window      ${window.length} messages, ~${shownTokens.toLocaleString('en-US')} tokens as shown (windowSize ${WINDOW})`,
  )
  console.log(
    `  truncated   ${truncated} tool results were shown truncated to fit; history() returns every original`,
  )
  console.log(`  pinned      ${session.pinnedCount}:`)
  for (const p of store.pinnedMessages({ sessionId: SESSION })) {
    console.log(
      `    seq ${String(p.seq).padStart(5)}  by ${p.actor} (${p.reason ?? '-'}) at ${p.pinnedAt.toISOString()}: "${preview(p.message)}"`,
    )
  }
}

// ---------------------------------------------------------------- the two processes

async function firstProcess(file: string, turns: number): Promise<void> {
  console.log(`Process 1 (pid ${process.pid}): ${turns.toLocaleString('en-US')} turns into ${file}`)
  const store = openContextStore(file)
  const model = new ScriptedModel({ script, contextWindowLimit: CONTEXT_WINDOW_LIMIT })
  const { agent, manager } = agentFor(store, model)
  const started = performance.now()
  for (let turn = 0; turn < turns; turn++) {
    await agent.invoke(prompt(turn))
    if ((turn + 1) % 500 === 0) console.log(`  … ${(turn + 1).toLocaleString('en-US')} turns`)
  }
  const seconds = (performance.now() - started) / 1000
  console.log(
    `  ${turns.toLocaleString('en-US')} turns in ${seconds.toFixed(1)} s (${((seconds * 1000) / turns).toFixed(1)} ms/turn); the model refused ${model.overflows} oversized inputs; each time the manager made room and the agent went on`,
  )
  report(store, manager, file)
  const before = fingerprint(agent.messages)
  console.log(`  agent.messages fingerprint ${before}`)
  store.close()

  console.log(`\nProcess 1 exits. A new process opens the same file:\n`)
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--resume', file, '--expect', before],
    {
      stdio: 'inherit',
    },
  )
  if (child.status !== 0) process.exitCode = child.status ?? 1
}

async function secondProcess(file: string, expected: string | undefined): Promise<void> {
  console.log(`Process 2 (pid ${process.pid}): new store, new Agent, same file`)
  const store = openContextStore(file)
  const model = new ScriptedModel({ script, contextWindowLimit: CONTEXT_WINDOW_LIMIT })
  const { agent, manager } = agentFor(store, model)
  await agent.initialize()
  const now = fingerprint(agent.messages)
  const same = expected === undefined || now === expected
  console.log(
    `  agent.messages fingerprint ${now}: ${same ? 'identical to process 1 — the window survived the restart' : 'DIFFERENT from process 1'}`,
  )
  console.log(
    `  first message it sees: "${preview(agent.messages[0]?.toJSON())}" (pinned: ${agent.messages[0]?.metadata?.custom?.pinned === true})`,
  )
  const evicted = manager.ledger
    .history({ limit: 50 })
    .find((e) => !e.inWindow && e.message.role === 'user' && 'text' in (e.message.content[0] ?? {}))
  if (evicted !== undefined)
    console.log(
      `  seq ${evicted.seq}, evicted long ago, is still in the archive: "${preview(evicted.message)}"`,
    )
  await agent.invoke('Status update: resumed after restart. What is the task?')
  console.log(`  continued: "${text(agent.messages.at(-1))}"`)
  report(store, manager, file)
  store.close()
  if (!same) process.exitCode = 1
}

if (args.resume !== undefined) await secondProcess(args.resume, args.expect)
else {
  const given = args.db
  const dir = given === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-demo-')) : undefined
  const file = given ?? join(dir as string, 'agent.db')
  if (given !== undefined) for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true })
  await firstProcess(file, Number(args.turns))
  // Part 3: recall — a new session in a file beside it, whose early facts the model pulls back.
  const recallFile = `${file.replace(/\.db$/u, '')}-recall.db`
  for (const x of ['', '-wal', '-shm']) rmSync(recallFile + x, { force: true })
  if (!(await printRecallDemo(recallFile))) process.exitCode = 1
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}
