/**
 * Recall, with a real Strands `Agent`: early in a conversation the user gives a few facts; dozens of turns
 * later they have left the window (the eviction log says when and why). Asked about them, the scripted
 * model — which sees only its window — calls `search_history`, then `read_history` on the best hit, and
 * answers from what the tool returned. `npm run demo` runs it after the main demo, and
 * `npm run demo -- --postgres` on PostgreSQL (the same agent, tools and script; the store's calls awaited).
 * Alone, on SQLite:
 *
 *   npx tsx examples/recall-demo.ts [file.db]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent } from '@strands-agents/sdk'
import type { Message } from '@strands-agents/sdk'
// In your project: import { openContextStore } from 'context-ledger'
import { openContextStore, type ContextStore } from '../src/index.js'
// In your project: import type { PostgresContextStore } from 'context-ledger/postgres'
import type { PostgresContextStore } from '../src/backends/postgres/index.js'
// In your project: import { … } from 'context-ledger/strands'
import {
  PersistentConversationManager,
  readHistoryTool,
  searchHistoryTool,
} from '../src/adapters/strands/index.js'
import { ScriptedModel, type ScriptedCall, type ScriptedReply } from './strands-scripted-model.js'

/** The facts the user gives at the start, and the question asked at the end. */
export const FACT = 'For the record: the on-call engineer for the cutover is Priya Raman, pager 4471.'
/** The question the user asks once the fact has left the window. */
export const QUESTION = 'Who is the on-call engineer for the cutover?'

/** What the demo found, for the test and the printout. */
export interface RecallDemoResult {
  /** Whether the fact was among the messages the model saw when asked (it must not be). */
  readonly factInWindowWhenAsked: boolean
  /** The seq of the fact, and why and when it left the window (the eviction log). */
  readonly factSeq: number
  readonly evicted: { readonly cut: string; readonly reason: string; readonly at: Date } | undefined
  /** The tools the model called, in order, with their inputs. */
  readonly toolCalls: readonly { readonly name: string; readonly input: unknown }[]
  /** What the tools returned, in order. */
  readonly toolResults: readonly string[]
  /** The model's final answer. */
  readonly answer: string
}

function textOf(m: Message | undefined): string {
  return (m?.content ?? [])
    .map((b) => (b.type === 'textBlock' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n')
}

function resultText(m: Message | undefined): string | undefined {
  const r = m?.content.find((b) => b.type === 'toolResultBlock')
  if (r?.type !== 'toolResultBlock') return undefined
  return r.content.map((c) => (c.type === 'textBlock' ? c.text : '')).join('\n')
}

/**
 * The "model": answers from what it sees. Asked a question whose answer is not in its messages, it
 * searches its history, reads the best hit, and answers from the text it read.
 */
function script(call: ScriptedCall): ScriptedReply {
  const last = call.messages.at(-1)
  const result = resultText(last)
  if (result !== undefined) {
    // The best hit it cannot see (a hit in its context is, at best, the question itself).
    const hit = /^- seq (\d+) \([a-z]+, no longer in your context/m.exec(result)
    if (result.includes('result') && hit !== null && !result.startsWith('[seq'))
      return [
        { toolUse: { name: 'read_history', input: { fromSeq: Number(hit[1]), toSeq: Number(hit[1]) } } },
      ]
    const found = /on-call engineer for the cutover is ([^,]+), pager (\d+)/.exec(result)
    const seq = /\[seq (\d+)\]/.exec(result)?.[1]
    return found === null
      ? 'I could not find that in our conversation.'
      : `The on-call engineer is ${found[1]} (pager ${found[2]}), as you told me at seq ${seq}.`
  }
  const prompt = textOf(last)
  if (prompt.endsWith('?')) {
    const seen = call.messages.some((m) => textOf(m).includes('on-call engineer for the cutover is'))
    if (!seen) return [{ toolUse: { name: 'search_history', input: { query: 'on-call engineer cutover' } } }]
  }
  return `Noted: ${prompt.slice(0, 40)}`
}

/**
 * Runs the scenario against a ledger.
 *
 * @param where - a SQLite file (created, and closed at the end), or an open store of either backend
 *   (left open)
 * @param fillerTurns - turns between the fact and the question
 * @returns what happened
 */
export async function runRecallDemo(
  where: string | ContextStore | PostgresContextStore,
  fillerTurns = 30,
): Promise<RecallDemoResult> {
  const store = typeof where === 'string' ? openContextStore(where) : where
  try {
    const calls: ScriptedCall[] = []
    const model = new ScriptedModel({
      script: (call) => {
        calls.push(call)
        return script(call)
      },
    })
    const manager = new PersistentConversationManager({ store, sessionId: 'recall', windowSize: 12 })
    const agent = new Agent({
      model,
      tools: [searchHistoryTool, readHistoryTool],
      conversationManager: manager,
      printer: false,
    })
    await agent.invoke(FACT)
    for (let i = 0; i < fillerTurns; i++) await agent.invoke(`Status update ${i}: shard ${i % 16} copied.`)
    const askedAt = calls.length
    await agent.invoke(QUESTION)
    const factSeq = 0
    // Awaited: a value on SQLite, a Promise on PostgreSQL.
    const evicted = await store.evictionOf('recall', factSeq)
    const asked = calls[askedAt]
    const history = await manager.ledger.history({ fromSeq: 0, limit: 10_000 })
    const toolCalls = history.flatMap((e) =>
      e.message.content.flatMap((b) =>
        'toolUse' in b ? [{ name: b.toolUse.name, input: b.toolUse.input }] : [],
      ),
    )
    const toolResults = history.flatMap((e) =>
      e.message.content.flatMap((b) =>
        'toolResult' in b ? [b.toolResult.content.map((c) => ('text' in c ? c.text : '')).join('\n')] : [],
      ),
    )
    return {
      factInWindowWhenAsked: (asked?.messages ?? []).some((m) => textOf(m).includes('Priya')),
      factSeq,
      evicted:
        evicted === undefined ? undefined : { cut: evicted.cut, reason: evicted.reason, at: evicted.at },
      toolCalls,
      toolResults,
      answer: textOf(agent.messages.at(-1)),
    }
  } finally {
    if (typeof where === 'string') await store.close()
  }
}

/**
 * Prints the scenario.
 *
 * @param where - a SQLite file, or an open store of either backend
 * @returns whether the model answered from what it recalled
 */
export async function printRecallDemo(where: string | ContextStore | PostgresContextStore): Promise<boolean> {
  console.log('\nRecall: the model pulls back what left its window')
  const r = await runRecallDemo(where)
  console.log(`  seq ${r.factSeq}: "${FACT}"`)
  console.log(
    r.evicted === undefined
      ? '  (it never left the window)'
      : `  left the window at ${r.evicted.at.toISOString()} by a ${r.evicted.cut} cut (${r.evicted.reason}) — the eviction log`,
  )
  console.log(
    `  asked: "${QUESTION}" — the fact was ${r.factInWindowWhenAsked ? '' : 'not '}among the messages the model saw`,
  )
  r.toolCalls.forEach((c, i) => {
    console.log(`  the model calls ${c.name} ${JSON.stringify(c.input)}`)
    const first = (r.toolResults[i] ?? '').split('\n').slice(0, 3).join(' ⏎ ')
    console.log(`    → ${first.length > 160 ? `${first.slice(0, 160)}…` : first}`)
  })
  console.log(`  answer: "${r.answer}"`)
  const ok = !r.factInWindowWhenAsked && r.answer.includes('Priya Raman') && r.toolCalls.length === 2
  console.log(`  answered from recall: ${ok ? 'yes' : 'NO'}`)
  return ok
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const given = process.argv[2]
  const dir = given === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-recall-')) : undefined
  const file = given ?? join(dir as string, 'recall.db')
  const ok = await printRecallDemo(file)
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  if (!ok) process.exitCode = 1
}
