/**
 * The README's two starts run as written. Each ```ts block is saved as a module whose imports of
 * `context-ledger` and `context-ledger/strands` point at the sources, and whose `agent.db` is a file in a
 * temp directory; the Strands start gets a scripted `model` (the README leaves the provider to the reader).
 * The same blocks were also checked against the built package (`npm run build`, then `npx tsx`).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'

// The starts: the blocks that import the package (the others are fragments of them); the OpenAI Agents
// start runs in openai-agents-examples.test.ts, the LangChain one in langchain-examples.test.ts, the Claude
// Agent SDK one in claude-agent-sdk-examples.test.ts.
const blocks = codeBlocks(readRepoFile('README.md'), 'ts').filter(
  (b) =>
    /^import /m.test(b) &&
    !b.includes("from 'context-ledger/openai-agents'") &&
    !b.includes("from 'context-ledger/langchain'") &&
    !b.includes("from 'context-ledger/claude-agent-sdk'"),
)
const dir = tempDir()
// Inside the repository, so the module resolves the repository's node_modules.
const moduleDir = join(ROOT, '.tmp', `readme-examples-${process.pid}`)
mkdirSync(moduleDir, { recursive: true })

afterEach(() => {
  vi.restoreAllMocks()
})

afterAll(() => {
  rmSync(moduleDir, { recursive: true, force: true })
  dir.cleanup()
})

const SCRIPTED_MODEL = `import { ScriptedModel } from '${ROOT}examples/strands-scripted-model.js'
const model = new ScriptedModel({ script: ['Step 1: take a backup.'] })
`

/** The block as a runnable module: sources instead of the package, a temp file instead of agent.db. */
function runnable(block: string, db: string): string {
  const code = block
    .replaceAll(`'context-ledger/strands'`, `'${ROOT}src/adapters/strands/index.js'`)
    .replaceAll(`'context-ledger'`, `'${ROOT}src/index.js'`)
    .replaceAll(`'agent.db'`, JSON.stringify(db))
  if (!/\bmodel,/.test(block)) return code
  const lines = code.split('\n')
  const lastImport = lines.findLastIndex((l) => l.startsWith('import '))
  return [...lines.slice(0, lastImport + 1), SCRIPTED_MODEL, ...lines.slice(lastImport + 1)].join('\n')
}

describe('README starts', () => {
  it('has a Strands start and a core start', () => {
    expect(blocks.filter((b) => b.includes("from 'context-ledger/strands'"))).toHaveLength(1)
    expect(blocks.filter((b) => !b.includes("from 'context-ledger/strands'"))).toHaveLength(1)
  })

  it.each(blocks.map((b, i) => [b.includes('context-ledger/strands') ? 'Strands' : 'core', i] as const))(
    'the %s start runs and leaves its session in the file',
    async (_kind, i) => {
      vi.spyOn(console, 'log').mockImplementation(() => undefined)
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
      const db = dir.file(`agent-${i}.db`)
      const file = join(moduleDir, `start-${i}.ts`)
      writeFileSync(file, runnable(blocks[i] ?? '', db))
      await import(file)
      vi.restoreAllMocks()
      const store = openContextStore(db, { mustExist: true })
      try {
        const sessionId = /sessionId: '([^']+)'/.exec(blocks[i] ?? '')?.[1] ?? ''
        expect(store.session(sessionId)?.messageCount).toBeGreaterThanOrEqual(2)
      } finally {
        store.close()
      }
    },
  )
})
