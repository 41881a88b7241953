/**
 * The real Claude Code CLI on a SQLite ledger with hostile tool traffic (see claude-agent-hostile.ts):
 * every entry it wrote is kept, the ones the limits cannot hold repaired, and the session resumes from
 * the ledger. The PostgreSQL twin is test/postgres/claude-agent-hostile-cli.test.ts.
 */
import { join } from 'node:path'
import { beforeAll, describe, it } from 'vitest'
import { claudeCli } from '../helpers/claude-cli.js'
import { useTempDir } from '../helpers/temp-store.js'
import { expectHostileRunKept, hostileRun } from './claude-agent-hostile.js'

const dir = useTempDir('context-ledger-claude-hostile-')
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)

describe('the real Claude Code CLI with hostile tool traffic, SQLite', () => {
  it('keeps every entry: a deep tool input, a toJSON key, an output cut in an emoji, a 17 MiB MCP result', async () => {
    const path = join(dir.path, 'hostile.db')
    await expectHostileRunKept(await hostileRun(path, cli, dir.path), path)
  }, 180_000)
})
