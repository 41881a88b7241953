/**
 * The files of a consumer project: a user's code against both entries, as an ES module, as CommonJS and
 * as TypeScript checked with `skipLibCheck: false` (so the shipped declarations themselves are checked,
 * with none of this repository's devDependencies around). Kept as text: they import `context-ledger` by
 * name, which only resolves inside the consumer.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { installedVersion } from './workspace.js'

/** What `esm.mjs` and `require.cjs` print: the results the tests compare. */
export interface ConsumerReport {
  /** The core manager's window after eviction. */
  readonly core: string[]
  /** The Strands agent's session, as `role:text`. */
  readonly agent: string[]
  /** `user_version` of a new ledger file: the number of migrations applied from the installed package. */
  readonly userVersion: number
}

/** An ES module using both entries: a new ledger file, the core manager, and a real Strands agent run. */
const esm = `import { Agent, Model } from '@strands-agents/sdk'
import { openContextStore, PersistentConversationManager as CoreManager } from 'context-ledger'
import { PersistentConversationManager, pinMessageTool } from 'context-ledger/strands'

/** Answers every turn with the same text, so the agent runs without a network. */
class NotedModel extends Model {
  updateConfig() {}
  getConfig() {
    return { modelId: 'noted' }
  }
  async *stream() {
    yield { type: 'modelMessageStartEvent', role: 'assistant' }
    yield { type: 'modelContentBlockStartEvent' }
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: 'noted' } }
    yield { type: 'modelContentBlockStopEvent' }
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' }
  }
}

const store = openContextStore('ledger.db') // a new file in the consumer's directory
const core = new CoreManager({ store, sessionId: 'core', windowSize: 2 })
core.append([
  { role: 'user', content: [{ text: 'a' }] },
  { role: 'assistant', content: [{ text: 'b' }] },
  { role: 'user', content: [{ text: 'c' }] },
])
core.applyWindow()

const agent = new Agent({
  model: new NotedModel(),
  conversationManager: new PersistentConversationManager({ store, sessionId: 'agent' }),
  tools: [pinMessageTool],
  printer: false,
})
await agent.invoke('hello')

console.log(
  JSON.stringify({
    core: core.window().map((m) => m.content[0].text),
    agent: store.window('agent').map((m) => m.role + ':' + m.content[0].text),
    userVersion: store.connection().pragma('user_version', { simple: true }),
  }),
)
store.close()
`

/** The same through `require()` (Node ≥ 20.19 loads ES modules without top-level await). */
const cjs = `const { openContextStore, ContextLedgerError } = require('context-ledger')
const { PersistentConversationManager } = require('context-ledger/strands')

const store = openContextStore(':memory:')
store.append('s', [{ role: 'user', content: [{ text: 'from require' }] }])
let refused
try {
  store.append('s', [{ role: 'user', content: [] }])
} catch (error) {
  refused = error instanceof ContextLedgerError ? error.code : String(error)
}
new PersistentConversationManager({ store, sessionId: 't' })
console.log(JSON.stringify({ window: store.window('s').map((m) => m.content[0].text), refused }))
store.close()
`

/**
 * TypeScript against both entries. The `@ts-expect-error` lines fail the check if a type degrades to
 * `any` (an unused expectation is an error), which is what a missing declaration package does.
 */
const checkTs = `import { Agent } from '@strands-agents/sdk'
import {
  ContextLedgerError,
  openContextStore,
  PersistentConversationManager,
  type LedgerEntry,
} from 'context-ledger'
import { PersistentConversationManager as StrandsManager, pinMessageTool } from 'context-ledger/strands'
import { ledgerSession, type LedgerSession } from 'context-ledger/ai-sdk'
import { openPostgresContextStore } from 'context-ledger/postgres'
import { LedgerSessionStore, projectKeyOf } from 'context-ledger/claude-agent-sdk'
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk'

const store = openContextStore(':memory:')
const db = store.connection()
export const version: unknown = db.pragma('user_version', { simple: true })
// @ts-expect-error -- better-sqlite3's prepare() takes SQL text: connection() is typed, not any
db.prepare(42)
const manager = new PersistentConversationManager({ store, sessionId: 's' })
export const entry: LedgerEntry = manager.append({ role: 'user', content: [{ text: 'hi' }] })
// @ts-expect-error -- a message needs content
manager.append({ role: 'user' })
export const code: string | undefined = new ContextLedgerError('INVALID_MESSAGE', 'x').code
export const agent = new Agent({
  conversationManager: new StrandsManager({ store, sessionId: 't', windowSize: 20 }),
  tools: [pinMessageTool],
  printer: false,
})
export const session: LedgerSession = ledgerSession({ store, sessionId: 'u', format: 'ui' })
export const sessionStore: SessionStore = new LedgerSessionStore({ store })
export const projectKey: string = projectKeyOf('.')
// Either backend: the PostgreSQL store is an AdapterStore too (its declarations match the interface).
export async function onPostgres(connectionString: string): Promise<SessionStore> {
  return new LedgerSessionStore({ store: await openPostgresContextStore({ connectionString }) })
}
// @ts-expect-error -- a store is required
new LedgerSessionStore({})
// @ts-expect-error -- format is 'model' or 'ui'
ledgerSession({ store, sessionId: 'v', format: 'strands' })
`

/** CommonJS TypeScript: \`import = require()\` of the ES module entries (TypeScript ≥ 5.8, nodenext). */
const checkCts = `import ledger = require('context-ledger')
import strands = require('context-ledger/strands')

const store = ledger.openContextStore(':memory:')
// @ts-expect-error -- better-sqlite3's prepare() takes SQL text: connection() is typed, not any
store.connection().prepare(42)
export const manager = new strands.PersistentConversationManager({ store, sessionId: 't' })
`

const strict = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false }

/** The two resolutions a consumer's compiler may use. */
export const TYPECHECKS = {
  nodenext: {
    compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext' },
    files: ['check.ts', 'check.cts'],
  },
  bundler: {
    compilerOptions: { ...strict, module: 'preserve', moduleResolution: 'bundler' },
    files: ['check.ts'],
  },
} as const

/**
 * The Claude Agent SDK's native CLI packages (~400 MB), each replaced by an empty package, as this
 * repository's own install does: the consumer only typechecks against the SDK.
 */
const NO_CLAUDE_CLI = Object.fromEntries(
  [
    'linux-x64',
    'linux-arm64',
    'linux-x64-musl',
    'linux-arm64-musl',
    'darwin-x64',
    'darwin-arm64',
    'win32-x64',
    'win32-arm64',
  ].map((platform) => [`@anthropic-ai/claude-agent-sdk-${platform}`, 'file:./no-claude-cli']),
)

/**
 * Writes a fresh consumer project that depends on `spec` and on the Strands SDK and AI SDK versions
 * this repository tests with.
 *
 * @param dir - the project directory (created)
 * @returns the npm arguments that install it
 */
export function writeConsumer(dir: string, spec: string): string[] {
  mkdirSync(dir, { recursive: true })
  const manifest = {
    name: 'consumer',
    version: '1.0.0',
    private: true,
    type: 'module',
    // The version whose addon the local prebuild holds (see workspace.ts).
    overrides: { 'better-sqlite3': installedVersion('better-sqlite3'), ...NO_CLAUDE_CLI },
    allowScripts: { 'better-sqlite3': true, 'context-ledger': true },
  }
  const files: Record<string, string> = {
    'package.json': JSON.stringify(manifest, null, 2),
    'esm.mjs': esm,
    'require.cjs': cjs,
    'check.ts': checkTs,
    'check.cts': checkCts,
  }
  for (const [name, config] of Object.entries(TYPECHECKS))
    files[`tsconfig.${name}.json`] = JSON.stringify(config, null, 2)
  mkdirSync(join(dir, 'no-claude-cli'))
  files['no-claude-cli/package.json'] = JSON.stringify({ name: 'no-claude-cli', version: '1.0.0' })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return [
    'install',
    spec,
    `@strands-agents/sdk@${installedVersion('@strands-agents/sdk')}`,
    `ai@${installedVersion('ai')}`,
    `pg@${installedVersion('pg')}`,
    `@types/pg@${installedVersion('@types/pg')}`,
    `@anthropic-ai/claude-agent-sdk@${installedVersion('@anthropic-ai/claude-agent-sdk')}`,
  ]
}
