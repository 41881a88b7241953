/**
 * The branch snippets run as written: the ```ts blocks of docs/strands.md's "Branches" section and of
 * the `.fork` / `.rewind` / `.branches` entries of docs/api.md's Strands class. A block that opens its own
 * store is a module of its own; any other continues the section's first block (its code first, the
 * fragment after). Each is saved as a module inside the repository whose imports of `context-ledger` and
 * `context-ledger/strands` point at the sources, whose `agent.db` is a temp file, and which gets the names
 * the docs leave to the reader: `model` (the branches example's scripted assistant), `clusterStatus` (a
 * status tool whose first answer comes from a stale cache) and `tools`. What a snippet built is handed
 * back through a probe on `globalThis`, and the file is read back.
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { Agent } from '@strands-agents/sdk'
import { openContextStore, type ContextStore } from '../../src/index.js'
import type { PersistentConversationManager } from '../../src/adapters/strands/index.js'
import { json } from '../adapters/strands/helpers.js'
import { entryTexts } from '../adapters/strands/branch-helpers.js'
import { tempDir } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'
import { moduleDir, runModule } from './langchain-doc-run.js'

/** The text of a document between a heading and the next heading of its level or above. */
function section(doc: string, heading: string): string {
  const lines = readRepoFile(doc).split('\n')
  const start = lines.indexOf(heading)
  const level = /^#+/.exec(heading)?.[0].length ?? 0
  const end = lines.findIndex(
    (l, i) => i > start && /^#+ /.test(l) && (/^#+/.exec(l)?.[0].length ?? 0) <= level,
  )
  if (start < 0) throw new Error(`${doc} has no heading ${heading}`)
  return lines.slice(start, end < 0 ? undefined : end).join('\n')
}

const guide = codeBlocks(section('docs/strands.md', '### Branches: roll back, retry, try two plans'), 'ts')
const api = [
  '### .fork(point, options?) → PersistentConversationManager',
  '### .rewind(point) → RewindResult',
  '### .branches() → BranchInfo[]',
].map((h) => codeBlocks(section('docs/api.md', h), 'ts'))
const [start = '', fork = '', restart = ''] = guide
const dir = tempDir('context-ledger-strands-branch-docs-')
const modules = moduleDir('strands-branches-doc')
const opened: ContextStore[] = []

afterAll(() => {
  for (const store of opened.splice(0)) store.close()
  modules.cleanup()
  dir.cleanup()
})

/** The names the docs leave to the reader. */
const PRELUDE = `import { tool as __tool } from '@strands-agents/sdk'
import { z as __z } from 'zod'
import { ScriptedModel as __ScriptedModel } from '${ROOT}examples/strands-scripted-model.js'
import { opsReply as __opsReply } from '${ROOT}examples/strands-branches.js'
const model = new __ScriptedModel({ script: __opsReply })
let __calls = 0
const clusterStatus = __tool({
  name: 'cluster_status',
  description: 'The health of a cluster',
  inputSchema: __z.object({ cluster: __z.string() }),
  callback: ({ cluster }) => (__calls++ === 0 ? \`\${cluster}: DOWN (cached 2 days ago)\` : \`\${cluster}: healthy\`),
})
const tools = [clusterStatus]
`

const PROBED = ['store', 'manager', 'agent', 'canary', 'canaryManager', 'abandoned', 'left'] as const
type Probe = Partial<Record<(typeof PROBED)[number], unknown>>

const IMPORT = /^import .*\n/gmu
const SOURCES: [string, string][] = [
  [`'context-ledger/strands'`, `'${ROOT}src/adapters/strands/index.js'`],
  [`'context-ledger'`, `'${ROOT}src/index.js'`],
]

/** A block (continuing `base` when given) as a runnable module on `db`. */
function runnable(block: string, db: string, base?: string): string {
  const parts = base === undefined ? [block] : [base, block]
  const imports = [...new Set(parts.flatMap((p) => p.match(IMPORT) ?? []))].join('')
  const [first = '', fragment] = parts.map((p) => p.replace(IMPORT, ''))
  const probe = `Object.assign(globalThis.__langchainDoc, { ${PROBED.map((n) => `${n}: typeof ${n} === 'undefined' ? undefined : ${n}`).join(', ')} })`
  // A fragment runs in a block of its own after the first block, so it may declare a name again.
  const body = fragment === undefined ? `${first}\n${probe}` : `${first}\n{\n${fragment}\n${probe}\n}`
  let code = [imports, PRELUDE, body].join('\n')
  for (const [from, to] of SOURCES) code = code.replaceAll(from, to)
  return code.replaceAll(`'agent.db'`, JSON.stringify(db))
}

let count = 0
async function run(block: string, db: string, base?: string): Promise<{ logged: unknown[]; probe: Probe }> {
  // The snippets' agents print as Strands agents do by default.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
  const result = await runModule(
    runnable(block, db, base),
    join(modules.path, `snippet-${count++}.ts`),
  ).finally(() => vi.restoreAllMocks())
  if (result.probe.store !== undefined) opened.push(result.probe.store as ContextStore)
  return result
}

describe('the branch snippets of docs/strands.md and docs/api.md', () => {
  it('has the three of the guide (rewind, fork, restart) and one for each method', () => {
    expect(guide).toHaveLength(3)
    expect(start).toContain('manager.rewind(')
    expect(fork).toContain('manager.fork(')
    expect(restart).toContain("sessionId: 'deploy-7-canary'")
    expect(api.map((blocks) => blocks.length)).toStrictEqual([1, 1, 1])
  })

  it('rolls the agent back after the bad tool run, forks a canary, and restarts on it in a new module', async () => {
    const db = dir.file('guide.db')
    const first = await run(fork, db, start)
    expect(first.logged.slice(0, 1)).toStrictEqual([['deploy-7~1', 4]])
    expect(first.logged.slice(1)).toStrictEqual([
      ['deploy-7', 'root', null, null],
      ['deploy-7~1', 'abandoned', 'deploy-7', 1],
      ['deploy-7-canary', 'fork', 'deploy-7', 5],
    ])
    const { agent, canary, manager } = first.probe as {
      agent: Agent
      canary: Agent
      manager: PersistentConversationManager
    }
    expect(json(agent.messages)).toStrictEqual(manager.ledger.window())
    const store = first.probe.store as ContextStore
    expect(entryTexts(store.history('deploy-7~1')).slice(2)).toStrictEqual([
      'Check the cluster status.',
      'call {"cluster":"eu-2"}',
      'result eu-2: DOWN (cached 2 days ago)',
      'The cluster is down: abort the move.',
    ])
    expect(entryTexts(store.history('deploy-7')).slice(2)).toStrictEqual([
      'Check the cluster status.',
      'call {"cluster":"eu-2"}',
      'result eu-2: healthy',
      'The cluster is healthy: go ahead.',
      'Move all of the traffic at once.',
      'OK: Move all of the traffic at once.',
    ])
    expect(entryTexts(store.history('deploy-7-canary')).slice(6)).toStrictEqual([
      'Move 5% of the traffic first.',
      'OK: Move 5% of the traffic first.',
    ])
    expect(json(canary.messages).map((m) => m.trackingId)).not.toContain(agent.messages.at(-1)?.trackingId)

    await run(restart, db)
    const after = openContextStore(db, { mustExist: true })
    opened.push(after)
    expect(entryTexts(after.history('deploy-7-canary')).slice(8)).toStrictEqual([
      'Now move the rest.',
      'OK: Now move the rest.',
    ])
    expect(after.messageCount('deploy-7')).toBe(8)
  })

  it('runs the method entries of docs/api.md after the guide’s first block', async () => {
    const [forkEntry = '', rewindEntry = '', branchesEntry = ''] = api.map((blocks) => blocks[0] ?? '')
    const forked = await run(forkEntry, dir.file('api-fork.db'), start)
    const store = forked.probe.store as ContextStore
    const tree = store.branches('deploy-7')
    expect(tree.map((b) => [b.kind, b.reason])).toStrictEqual([
      ['root', null],
      ['abandoned', 'stale status cache'],
      ['fork', 'try a canary first'],
    ])
    const rewound = await run(rewindEntry, dir.file('api-rewind.db'), start)
    const result = (rewound.probe.manager as PersistentConversationManager).branches()
    expect(result.map((b) => b.sessionId)).toStrictEqual(['deploy-7', 'deploy-7~1', 'deploy-7~2'])
    const listed = await run(branchesEntry, dir.file('api-branches.db'), start)
    // After the line the first block prints.
    expect(listed.logged.slice(1)).toStrictEqual([
      [0, 'deploy-7', 'root', null],
      [1, 'deploy-7~1', 'abandoned', 1],
    ])
  })
})
