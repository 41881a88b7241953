/**
 * docs/langchain.md's PostgreSQL snippet runs as written (test/docs/langchain-doc-run.ts: the sources
 * for the package, the demo's scripted model as `model`), against a fresh database of the project's
 * server named by `DATABASE_URL`, through LangChain's real `createAgent`; the thread is then read back
 * from the database. docs/langchain.md's other snippets run in test/docs/langchain-examples.test.ts.
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { docBlocks, isPostgres, moduleDir, runModule, runnable } from '../docs/langchain-doc-run.js'
import { useDatabases } from './databases.js'

const { database, open } = useDatabases()
const modules = moduleDir('langchain-docs-postgres')
afterAll(() => {
  modules.cleanup()
})

describe('docs/langchain.md on PostgreSQL', () => {
  it('the PostgreSQL snippet runs the agent on the server and leaves the thread there', async () => {
    const block = docBlocks().find(isPostgres) ?? ''
    expect(block).toContain('openPostgresContextStore')
    const url = await database()
    const before = process.env.DATABASE_URL
    process.env.DATABASE_URL = url
    try {
      const none = { agentDb: '', chatDb: '', checkpointsDb: '' }
      const { logged } = await runModule(runnable(block, '', none), join(modules.path, 'postgres.ts'))
      expect(logged).toStrictEqual([2])
    } finally {
      if (before === undefined) delete process.env.DATABASE_URL
      else process.env.DATABASE_URL = before
    }
    const store = await open(url)
    const session = await store.session('support-42')
    expect(session?.format).toBe('langchain')
    expect(session?.messageCount).toBe(2)
  })
})
