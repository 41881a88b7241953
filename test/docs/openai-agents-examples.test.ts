/**
 * The OpenAI Agents starts run as written: the README's and docs/openai-agents.md's ```ts blocks that import
 * `context-ledger/openai-agents` are each saved as a module whose imports of `context-ledger` and
 * `context-ledger/openai-agents` point at the sources, whose `agent.db` is a file in a temp directory, and
 * which gets a scripted `model` (the SDK's `ScriptedModel` from `@openai/agents-core/testing`: a
 * `lookup_order` call, then an answer; no network). The SDK's real `run()` drives the session, and the
 * file is read back.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'

const starts = (doc: string) =>
  codeBlocks(readRepoFile(doc), 'ts')
    .filter((b) => /^import .* from 'context-ledger\/openai-agents'$/m.test(b))
    .map((block) => ({ doc, block }))
const blocks = [...starts('README.md'), ...starts('docs/openai-agents.md')]
const dir = tempDir()
// Inside the repository, so the module resolves the repository's node_modules.
const moduleDir = join(ROOT, '.tmp', `openai-agents-examples-${process.pid}`)
mkdirSync(moduleDir, { recursive: true })

afterAll(() => {
  rmSync(moduleDir, { recursive: true, force: true })
  dir.cleanup()
})

/** The model the starts leave to the reader: one tool call when the agent has the tool, then an answer. */
const SCRIPTED_MODEL = `import { setTracingDisabled } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing'
setTracingDisabled(true)
const model = new ScriptedModel([
  ...(__CALLS__ ? [[functionCall('lookup_order', { order: 'A-1001' }, { callId: 'call_1' })]] : []),
  [assistantMessage('Order A-1001 has shipped.')],
])
`

function runnable(block: string, db: string): string {
  const code = block
    .replaceAll(`'context-ledger/openai-agents'`, `'${ROOT}src/adapters/openai-agents/index.js'`)
    .replaceAll(`'context-ledger'`, `'${ROOT}src/index.js'`)
    .replaceAll(`'agent.db'`, JSON.stringify(db))
  const lines = code.split('\n')
  const lastImport = lines.findLastIndex((l) => l.startsWith('import '))
  const model = SCRIPTED_MODEL.replace('__CALLS__', String(block.includes('lookup_order')))
  return [...lines.slice(0, lastImport + 1), model, ...lines.slice(lastImport + 1)].join('\n')
}

describe('the OpenAI Agents starts', () => {
  it('has one in the README and one in docs/openai-agents.md', () => {
    expect(blocks.map((b) => b.doc)).toEqual(['README.md', 'docs/openai-agents.md'])
    for (const { block } of blocks) expect(block).toContain('{ session })')
  })

  it.each(blocks.map((b, i) => [b.doc, i] as const))(
    'the start of %s runs the SDK loop and leaves every item in the file',
    async (_doc, i) => {
      const logged: unknown[] = []
      vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args[0]))
      const { block } = blocks[i] ?? { block: '' }
      const db = dir.file(`agent-${i}.db`)
      const file = join(moduleDir, `start-${i}.ts`)
      writeFileSync(file, runnable(block, db))
      try {
        await import(file)
      } finally {
        vi.restoreAllMocks()
      }
      expect(logged[0]).toBe('Order A-1001 has shipped.')
      const store = openContextStore(db, { mustExist: true })
      try {
        const items = store.history('support-42').map((e) => e.message as { type?: string; role?: string })
        const kinds = items.map((m) => (m.type === undefined || m.type === 'message' ? m.role : m.type))
        expect(kinds).toEqual(
          block.includes('lookup_order')
            ? ['user', 'function_call', 'function_call_result', 'assistant']
            : ['user', 'assistant'],
        )
      } finally {
        store.close()
      }
    },
  )
})
