/**
 * Every snippet of docs/langchain.md runs, and the README's LangChain start: each ```ts block as a
 * module (test/docs/langchain-doc-run.ts: the sources for the package, temp files for the databases, the
 * demo's scripted support model as `model`, no network), through LangChain's real `createAgent`; then
 * what it left is read back and the test goes on with what it built — the checkpointed state stays the
 * window while the thread grows, the model calls the recall tools, a summary model folds. The ```json
 * block is what the quick start stored; the ```sh block's CLI commands run on the quick start's file. The
 * PostgreSQL snippet runs in test/postgres/langchain-docs.test.ts.
 */
import { join } from 'node:path'
import type { BaseMessage } from '@langchain/core/messages'
import { createAgent, type ReactAgent } from 'langchain'
import { afterAll, describe, expect, it } from 'vitest'
import { SupportModel } from '../../examples/langchain-demo-model.js'
import type { LedgerMiddleware } from '../../src/adapters/langchain/index.js'
import { openContextStore, type ContextStore } from '../../src/index.js'
import { tsx } from '../helpers/demo-run.js'
import { tempDir } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile } from './markdown.js'
import {
  docBlocks,
  isModule,
  isPostgres,
  moduleDir,
  runModule,
  runnable,
  type Probe,
  type SnippetFiles,
} from './langchain-doc-run.js'

const DOC = readRepoFile('docs/langchain.md')
const blocks = docBlocks()
const quickStart = blocks[0] ?? ''
const readmeStarts = codeBlocks(readRepoFile('README.md'), 'ts').filter((b) =>
  b.includes("from 'context-ledger/langchain'"),
)
const dir = tempDir('context-ledger-langchain-docs-')
const modules = moduleDir('langchain-examples')
const opened: { close(): unknown }[] = []

afterAll(() => {
  for (const s of opened.splice(0)) s.close()
  modules.cleanup()
  dir.cleanup()
})

let count = 0
/** Runs a snippet on files of its own; the stores it opened are closed after the file. */
async function run(block: string) {
  const n = count++
  const files: SnippetFiles = {
    agentDb: dir.file(`agent-${n}.db`),
    chatDb: dir.file(`chat-${n}.db`),
    checkpointsDb: dir.file(`checkpoints-${n}.db`),
  }
  const result = await runModule(runnable(block, quickStart, files), join(modules.path, `snippet-${n}.ts`))
  const store = result.probe.store as ContextStore | undefined
  if (store !== undefined) opened.push(store)
  // A fragment prints the quick start's lines first.
  const skip = isModule(block) ? 0 : (quickStart.match(/console\.log\(/gu) ?? []).length
  return { ...result, logged: result.logged.slice(skip), files }
}

const open = (file: string): ContextStore => {
  const store = openContextStore(file, { mustExist: true })
  opened.push(store)
  return store
}

type Agent = ReactAgent
const agentOf = (probe: Probe) => probe.agent as Agent
const configOf = (probe: Probe) => probe.config as { configurable: { thread_id: string } }
const say = (agent: Agent, text: string, config: unknown) =>
  agent.invoke({ messages: [{ role: 'user', content: text }] }, config as never) as Promise<{
    messages: BaseMessage[]
  }>

/**
 * The quick start's file: what it printed and stored (the ```json block), and with `cli` the ```sh
 * block on it.
 */
async function checkQuickStart(block: string, cli: boolean): Promise<void> {
  const { logged, files } = await run(block)
  expect(logged).toStrictEqual(['Order A-1001 is shipped.', ['human', 'ai', 'tool', 'ai']])
  const store = open(files.agentDb)
  expect(store.session('support-42')?.format).toBe('langchain')
  const stored = store
    .history('support-42')
    .slice(1, 3)
    .map((e) => e.message as unknown as { data: { id?: string | undefined } })
  const shown = JSON.parse(codeBlocks(DOC, 'json')[0] ?? '[]') as { data: { id?: string | undefined } }[]
  // The ToolMessage's id is the UUID LangGraph's reducer gave it: another at each run.
  expect(stored[1]?.data.id).toMatch(/^[0-9a-f-]{36}$/u)
  if (shown[1] !== undefined) shown[1].data.id = stored[1]?.data.id
  expect(stored).toStrictEqual(shown)
  if (cli) runCliBlock(files.agentDb)
}

/** The ```sh block's commands, on a file the quick start wrote. */
function runCliBlock(file: string): void {
  for (const line of codeBlocks(DOC, 'sh')[0]?.split('\n') ?? []) {
    const words = line
      .replace(/\s+#.*$/u, '')
      .replace(/ > \S+$/u, '')
      .split(' ')
    expect(words.slice(0, 2)).toStrictEqual(['npx', 'context-ledger'])
    const args = words.slice(2).map((w) => (w === 'agent.db' ? file : w.replaceAll('"', '')))
    const cli = tsx('src/cli/main.ts', ...args)
    expect(cli.status, `${line}\n${cli.stderr}`).toBe(0)
    if (args[0] === 'search') expect(cli.stdout).toContain('A-1001')
    if (args[0] === 'history') expect(cli.stdout).toContain('→ lookup_order({"order":"A-1001"})')
    if (args[0] === 'export') expect(cli.stdout.split('\n').length).toBeGreaterThan(4)
  }
}

/** Each snippet of the doc but the quick start and the PostgreSQL one, by a phrase only it has. */
const CHECKS: Record<string, (block: string) => Promise<void>> = {
  // The checkpointed state stays the window (and the run's answer) while the thread grows past it.
  'SqliteSaver.fromConnString': async (block) => {
    const { logged, probe, files } = await run(block)
    expect(logged).toStrictEqual([6])
    const agent = agentOf(probe)
    for (let i = 0; i < 25; i++) await say(agent, `Note number ${i}.`, configOf(probe))
    const state = await agent.graph.getState(configOf(probe) as never)
    const messages = (state.values as { messages: BaseMessage[] }).messages
    expect(messages.length).toBeLessThanOrEqual(41)
    expect(open(files.agentDb).session('support-42')?.messageCount).toBe(56)
    ;(probe.checkpointer as { db: { close(): void } }).db.close()
  },
  // The middleware's own tools: the model searches the thread's archive.
  'tools: true': async (block) => {
    const { probe, files } = await run(block)
    const result = await say(agentOf(probe), 'What was my refund code?', configOf(probe))
    expect(result.messages.at(-1)?.text).toBe('I could not find it.')
    const names = open(files.agentDb)
      .history('support-42')
      .map((e) => (e.message as unknown as { type: string; data: { name?: string } }).data.name)
    expect(names).toContain('search_history')
  },
  'ledgerTools(': async (block) => {
    const { logged, probe } = await run(block)
    expect(logged).toStrictEqual([['lookup_order', 'search_history', 'read_history', 'pin_message']])
    const search = (probe.tools as { invoke(input: unknown): Promise<unknown> }[])[1]
    expect(String(await search?.invoke({ query: 'A-1001' }))).toContain('A-1001')
  },
  // What the limits would evict is folded by the summary model, and shown as the summary.
  'summarize: { model: summaryModel }': async (block) => {
    const { probe, files } = await run(block)
    const agent = createAgent({ model: new SupportModel(), tools: [], middleware: [probe.ledger as never] })
    const config = { configurable: { thread_id: 'long' } }
    for (let i = 0; i < 22; i++) await say(agent as never, `Note number ${i}.`, config)
    const store = open(files.agentDb)
    expect(store.summaries('long').length).toBeGreaterThan(0)
    expect(store.session('long')?.messageCount).toBe(44)
    const window = await (probe.ledger as LedgerMiddleware).session('long').window()
    expect(window[0]?.id).toBe('context-ledger:summary')
    expect(window[0]?.text).toMatch(/^Summary \d+ of \d+ messages\.$/u)
  },
  'const thread = ledger.session': async (block) => {
    const { logged, files } = await run(block)
    expect(logged).toStrictEqual([[4, 4, 4]]) // all four mention the order
    expect(open(files.agentDb).session('support-42')?.pinnedCount).toBe(1)
  },
  RunnableWithMessageHistory: async (block) => {
    const { logged, files } = await run(block)
    expect(logged).toStrictEqual([4])
    const types = open(files.chatDb)
      .history('chat-7')
      .map((e) => (e.message as unknown as { type: string }).type)
    expect(types).toStrictEqual(['human', 'ai', 'human', 'ai'])
  },
  // The refusal names the path, writes nothing, and once the stray message is out of the state the
  // thread goes on.
  'never-made': async (block) => {
    const { logged, probe, files } = await run(block)
    expect(logged).toStrictEqual(['messages[2].data.tool_call_id'])
    const store = open(files.agentDb)
    expect(store.session('support-42')?.messageCount).toBe(2)
    await say(agentOf(probe), 'Thanks.', configOf(probe))
    expect(store.session('support-42')?.messageCount).toBe(4)
  },
}

describe('docs/langchain.md and the README LangChain start', () => {
  it('has a check for every snippet, a quick start first and one PostgreSQL snippet', () => {
    expect(isModule(quickStart)).toBe(true)
    expect(quickStart).toContain('middleware: [ledger]')
    expect(blocks.filter(isPostgres)).toHaveLength(1)
    const rest = blocks.slice(1).filter((b) => !isPostgres(b))
    for (const block of rest)
      expect(
        Object.keys(CHECKS).filter((phrase) => block.includes(phrase)),
        block,
      ).toHaveLength(1)
    expect(rest).toHaveLength(Object.keys(CHECKS).length)
    expect(codeBlocks(DOC, 'json')).toHaveLength(1)
    expect(codeBlocks(DOC, 'sh')).toHaveLength(1)
    expect(readmeStarts).toHaveLength(1)
  })

  it('the quick start runs the createAgent loop and leaves the thread in the file, as the doc and its CLI show it', async () => {
    await checkQuickStart(quickStart, true)
  })

  it('the README start does the same', async () => {
    await checkQuickStart(readmeStarts[0] ?? '', false)
  })

  it.each(Object.keys(CHECKS))('the snippet with %s runs and does what the doc says', async (phrase) => {
    const block = blocks.find((b) => b.includes(phrase)) ?? ''
    await CHECKS[phrase]?.(block)
  })
})
