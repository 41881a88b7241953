/**
 * test/reliability/claude-agent-hostile-cli.test.ts on PostgreSQL: the real Claude Code CLI with hostile
 * tool traffic (a NUL, a lone surrogate, a deep tree, a toJSON key, a 17 MiB string) on a PostgreSQL
 * ledger: every entry kept, the session resumed from it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { claudeCli } from '../helpers/claude-cli.js'
import { expectHostileRunKept, hostileRun } from '../reliability/claude-agent-hostile.js'
import { useDatabases } from './databases.js'

const { database } = useDatabases()
const dir = mkdtempSync(join(tmpdir(), 'context-ledger-claude-hostile-pg-'))
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('the real Claude Code CLI with hostile tool traffic, PostgreSQL', () => {
  it('keeps every entry: a deep tool input, a toJSON key, an output cut in an emoji, a 17 MiB MCP result', async () => {
    const url = await database()
    await expectHostileRunKept(await hostileRun(url, cli, dir), url)
  }, 180_000)
})
