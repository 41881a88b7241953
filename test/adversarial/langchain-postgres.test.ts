/**
 * Adversarial: the LangChain adapter on the PostgreSQL store (the `postgres` project's server, a database
 * per test) — a NUL (U+0000) in a message, a tool's output and a summary (PostgreSQL's text cannot hold
 * one); the database cut while the model runs, so the ledger's write of its message fails; the ledger's
 * connection killed in the middle of its write transaction. Held: every failure a `ContextLedgerError`,
 * nothing half-written, the thread going on afterwards with every message stored once and every model
 * input paired.
 *
 * Written as attacks by an adversarial tester. The first was broken (a NUL anywhere in a LangChain
 * message's text was refused by PostgreSQL, as INVALID_OPTIONS without a path, where SQLite stores it),
 * was fixed, and stays as a regression test.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createAgent, createMiddleware } from 'langchain'
import { z } from 'zod'
import { LedgerChatMessageHistory, ledgerMiddleware } from '../../src/adapters/langchain/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'
import { ContextLedgerError } from '../../src/index.js'
import { useNoUncaught } from '../helpers/no-uncaught.js'
import { useDatabases } from '../postgres/databases.js'
import { pgLedgerChecksum } from '../postgres/checksum.js'
import { conversation, lookup, pairingProblems, ScriptedChatModel } from '../adapters/langchain/helpers.js'
import { failure, ledgerErrorIn, onThread } from './langchain-support.js'

const { adminUrl, database, open } = useDatabases()
useNoUncaught()

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs SQL on the server as its admin. */
async function admin<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return (await client.query<T>(sql, values)).rows
  } finally {
    await client.end()
  }
}

/** The database's name, checked before it is written into SQL. */
function nameOf(url: string): string {
  const name = new URL(url).pathname.slice(1)
  if (!/^cl_[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`)
  return name
}

/** Every stored id once; the messages' types in order. */
async function archive(store: PostgresContextStore, sessionId: string): Promise<string[]> {
  const entries = await store.history(sessionId, { limit: 1000 })
  expect(new Set(entries.map((e) => e.trackingId)).size).toBe(entries.length)
  return entries.map((e) => (e.message as unknown as { type: string }).type)
}

describe('a NUL in a LangChain message, on PostgreSQL', () => {
  it('is stored exactly in a prompt, a tool output and a summary, and found by search', async () => {
    const store = await open(await database())
    const history = new LedgerChatMessageHistory({
      store,
      sessionId: 's',
      windowSize: 4,
      summarize: () => 'the summary keeps a \u0000 too',
    })
    const messages = [
      new HumanMessage({ id: 'h1', content: 'before\u0000nulword after' }),
      new AIMessage({ id: 'a1', content: '', tool_calls: [{ id: 'c1', name: 'f', args: { q: '\u0000' } }] }),
      new ToolMessage({ id: 't1', content: 'out\u0000put', tool_call_id: 'c1' }),
      new AIMessage({ id: 'a2', content: [{ type: 'text', text: 'said \u0000' }] }),
      new HumanMessage({ id: 'h2', content: 'more' }),
      new AIMessage({ id: 'a3', content: 'done' }),
    ]
    await history.addMessages(messages)
    const stored = await history.history()
    expect(stored.map((m) => m.toDict())).toStrictEqual(messages.map((m) => m.toDict()))
    const shown = await history.getMessages()
    expect(shown[0]?.id).toBe('context-ledger:summary')
    expect(shown[0]?.text).toBe('the summary keeps a \u0000 too')
    const hits = await store.search('nulword')
    expect(hits.map((h) => h.snippet)).toStrictEqual(['before **nulword** after'])
  })

  it('in an id, a call id or a tool name: a ContextLedgerError, nothing written, the session goes on', async () => {
    const store = await open(await database())
    const history = new LedgerChatMessageHistory({ store, sessionId: 's' })
    await history.addMessages([new HumanMessage({ id: 'h0', content: 'first' })])
    const before = await pgLedgerChecksum(store.pool)
    const call = (id: string, name: string) =>
      new AIMessage({ content: '', tool_calls: [{ id, name, args: {} }] })
    for (const bad of [
      [new HumanMessage({ id: 'h\u0000', content: 'x' })],
      [call('c\u0000', 'f')],
      [call('c', 'f\u0000'), new ToolMessage({ content: 'r', tool_call_id: 'c' })],
    ]) {
      const error = await failure(() => history.addMessages(bad))
      expect(error).toBeInstanceOf(ContextLedgerError)
      expect(error.message).toMatch(/NUL/)
    }
    expect(await pgLedgerChecksum(store.pool)).toBe(before)
    await history.addMessages([new HumanMessage('still here')])
    expect((await history.history()).map((m) => m.text)).toStrictEqual(['first', 'still here'])
  })
})

describe('the database goes away while the agent runs', () => {
  it('cut during the model call: STORAGE_ERROR; once back, the model`s message is stored once, its call repaired', async () => {
    const url = await database()
    const store = await open(url)
    const name = nameOf(url)
    let cutAfterModel = false
    const cutter = createMiddleware({
      name: 'Cut',
      wrapModelCall: async (request, handler) => {
        const reply = await handler(request)
        if (cutAfterModel) {
          cutAfterModel = false
          await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`)
          await admin(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [name],
          )
        }
        return reply
      },
    })
    const model = new ScriptedChatModel({ plan: [2, 0, 1, 0, 0] })
    const mw = ledgerMiddleware({ store, windowSize: 8 })
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [mw, cutter],
      checkpointer: new MemorySaver(),
    })
    await agent.invoke({ messages: [new HumanMessage('q1')] }, onThread('t'))
    cutAfterModel = true
    const error = await failure(() => agent.invoke({ messages: [new HumanMessage('q2')] }, onThread('t')))
    expect(['STORAGE_ERROR', 'DATABASE_BUSY']).toContain(error.code)
    await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`)
    await agent.invoke({ messages: [new HumanMessage('q3')] }, onThread('t'))
    expect(await archive(store, 't')).toStrictEqual([
      ...['human', 'ai', 'tool', 'tool', 'ai'],
      // q2's answer made a call the dead run never ran: repaired when q3 came.
      ...['human', 'ai', 'tool', 'human', 'ai'],
    ])
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
  })

  it('the ledger`s connection killed inside its write: nothing half-written, the next run stores it once', async () => {
    const url = await database()
    const store = await open(url)
    const name = nameOf(url)
    const blocker = new pg.Client({ connectionString: url })
    await blocker.connect()
    let arm = false
    // A tool whose result the ledger stores at the next model call: that write is the one killed.
    const armed = tool(
      async () => {
        if (arm) {
          arm = false
          // Lets the ledger read but not write its messages: its next write waits on the lock, inside its transaction.
          await blocker.query('BEGIN')
          await blocker.query('LOCK TABLE context_ledger.messages IN EXCLUSIVE MODE')
        }
        return 'result'
      },
      { name: 'lookup', description: 'x', schema: z.object({ n: z.number(), k: z.number() }) },
    )
    const model = new ScriptedChatModel({ plan: [0, 1, 0, 0] })
    const agent = createAgent({
      model,
      tools: [armed],
      middleware: [ledgerMiddleware({ store })],
      checkpointer: new MemorySaver(),
    })
    await agent.invoke({ messages: [new HumanMessage('q1')] }, onThread('t'))
    arm = true
    const run = agent.invoke({ messages: [new HumanMessage('q2')] }, onThread('t')).then(
      () => undefined,
      (e: unknown) => e,
    )
    // Waits for the ledger's write to wait on the lock, then kills that connection mid-transaction.
    let killed = 0
    for (let i = 0; i < 500 && killed === 0; i++) {
      const rows = await admin<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> $2`,
        [name, (blocker as unknown as { processID: number }).processID],
      )
      for (const { pid } of rows) {
        await admin('SELECT pg_terminate_backend($1)', [pid])
        killed++
      }
      if (killed === 0) await sleep(10)
    }
    expect(killed).toBeGreaterThan(0)
    await blocker.query('ROLLBACK')
    await blocker.end()
    const outcome = await run
    // The store runs a write again on a new connection when the first was lost before it committed; if
    // it gave up, the run failed with a ContextLedgerError.
    if (outcome !== undefined)
      expect(['STORAGE_ERROR', 'DATABASE_BUSY']).toContain(ledgerErrorIn(outcome).code)
    await agent.invoke({ messages: [new HumanMessage('q3')] }, onThread('t'))
    expect(await archive(store, 't')).toStrictEqual([
      ...['human', 'ai'],
      ...['human', 'ai', 'tool', 'ai'],
      ...['human', 'ai'],
    ])
    for (const input of model.inputs) expect(pairingProblems(conversation(input))).toStrictEqual([])
  })
})
