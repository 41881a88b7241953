/**
 * The Claude Agent SDK starts run as written: the README's and docs/claude-agent-sdk.md's ```ts blocks
 * that import `context-ledger/claude-agent-sdk` are each saved as a module whose imports of
 * `context-ledger` and `context-ledger/claude-agent-sdk` point at the sources, whose `agent.db` is a file
 * in a temp directory, and whose `query` is a stand-in (claude-query-stand-in.ts) that mirrors a
 * transcript recorded from the real CLI through the block's `sessionStore` as the SDK does — the SDK's
 * native CLI is not installed for unit tests; the end-to-end test runs the real one. The file is read
 * back.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir } from '../helpers/temp-store.js'
import { readFixture, transcriptOf } from '../helpers/claude-fixtures.js'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'
import { projectKeyOf, RESULT, SESSION_ID } from './claude-query-stand-in.js'
import { moduleDir, runModule } from './langchain-doc-run.js'

/** The ```ts blocks of a doc that use `context-ledger/claude-agent-sdk`. */
const adapterBlocks = (doc: string) =>
  codeBlocks(readRepoFile(doc), 'ts')
    .filter((b) => /^import .* from 'context-ledger\/claude-agent-sdk'$/m.test(b))
    .map((block) => ({ doc, block }))
/** The quick starts: the blocks that run `query()`. */
const starts = (doc: string) =>
  adapterBlocks(doc).filter(({ block }) =>
    block.includes("import { query } from '@anthropic-ai/claude-agent-sdk'"),
  )
const blocks = [...starts('README.md'), ...starts('docs/claude-agent-sdk.md')]
/** The blocks that fork (docs/claude-agent-sdk.md, "Forks"). */
const forks = adapterBlocks('docs/claude-agent-sdk.md').filter(({ block }) => block.includes('forkSession('))
const everyBlock = [...adapterBlocks('README.md'), ...adapterBlocks('docs/claude-agent-sdk.md')]
const dir = tempDir()
// Inside the repository, so the module resolves the repository's node_modules.
const modules = moduleDir('claude-agent-sdk-examples')

afterAll(() => {
  modules.cleanup()
  dir.cleanup()
})

function runnable(block: string, db: string): string {
  return block
    .replaceAll(`'@anthropic-ai/claude-agent-sdk'`, `'${ROOT}test/docs/claude-query-stand-in.js'`)
    .replaceAll(`'context-ledger/claude-agent-sdk'`, `'${ROOT}src/adapters/claude-agent-sdk/index.js'`)
    .replaceAll(`'context-ledger'`, `'${ROOT}src/index.js'`)
    .replaceAll(`'agent.db'`, JSON.stringify(db))
}

/** A block as a consumer's module: the package's entries at the sources, the SDK's real types. */
const typed = (block: string): string =>
  block
    .replaceAll(`'context-ledger/claude-agent-sdk'`, `'${ROOT}src/adapters/claude-agent-sdk/index.js'`)
    .replaceAll(`'context-ledger/postgres'`, `'${ROOT}src/backends/postgres/index.js'`)
    .replaceAll(`'context-ledger'`, `'${ROOT}src/index.js'`)

describe('the Claude Agent SDK forks', () => {
  it('fork the quick start’s session without copying it, and read the fork', async () => {
    expect(forks).toHaveLength(1)
    const db = dir.file('fork.db')
    const start = blocks[1]?.block ?? ''
    await runModule(runnable(start, db), join(modules.path, 'fork-start.ts'))
    const { block } = forks[0] ?? { block: '' }
    const { logged } = await runModule(runnable(block, db), join(modules.path, 'fork.ts'))
    const messages = transcriptOf(readFixture('tool-call')).filter(
      (e) => e.type === 'user' || e.type === 'assistant',
    )
    const toolCall = messages.findIndex((e) => e.type === 'assistant')
    expect(logged).toStrictEqual([[toolCall + 1, ['root', 'fork']]])
    const store = openContextStore(db, { mustExist: true })
    try {
      const rows = store.connection().prepare('SELECT count(*) FROM messages').pluck().get()
      expect(rows).toBe(transcriptOf(readFixture('tool-call')).length)
    } finally {
      store.close()
    }
  })
})

describe('the Claude Agent SDK starts', () => {
  it('typecheck as a strict consumer would compile them, against the SDK’s own types', () => {
    expect(everyBlock.length).toBeGreaterThanOrEqual(3)
    const files = everyBlock.map(({ block }, i) => {
      const file = join(modules.path, `typed-${i}.mts`)
      writeFileSync(file, `${typed(block)}\nexport {}\n`)
      return file
    })
    const program = ts.createProgram(files, {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || files.includes(d.file.fileName))
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
    expect(problems).toEqual([])
  }, 120_000)

  it('has one in the README and one in docs/claude-agent-sdk.md, the same', () => {
    expect(blocks.map((b) => b.doc)).toEqual(['README.md', 'docs/claude-agent-sdk.md'])
    expect(blocks[0]?.block).toBe(blocks[1]?.block)
    for (const { block } of blocks) {
      expect(block).toContain('options: { sessionStore } })')
      expect(block.split('\n').length).toBeLessThanOrEqual(20)
    }
  })

  it.each(blocks.map((b, i) => [b.doc, i] as const))(
    'the start of %s mirrors the transcript into the file, found by search',
    async (_doc, i) => {
      const { block } = blocks[i] ?? { block: '' }
      const db = dir.file(`agent-${i}.db`)
      const { logged } = await runModule(runnable(block, db), join(modules.path, `start-${i}.ts`))
      expect(logged).toEqual([RESULT, true])
      const store = openContextStore(db, { mustExist: true })
      try {
        const id = `${projectKeyOf(process.cwd())}/${SESSION_ID}`
        expect(store.history(id, { limit: 1000 }).map((e) => e.message)).toStrictEqual(
          transcriptOf(readFixture('tool-call')),
        )
        expect(store.session(id)?.format).toBe('claude-agent')
      } finally {
        store.close()
      }
    },
  )
})
