/**
 * test/reliability/claude-agent-e2e.test.ts on PostgreSQL (the `postgres` project's server): the real
 * Claude Code CLI's session, resumed in a second process and compacted, read back from a PostgreSQL
 * ledger; two processes appending to one session at once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { claudeCli } from '../helpers/claude-cli.js'
import type { AppenderArgs } from '../helpers/claude-ledger.js'
import { expectResumedRun, expectTwoWritersKeptAll } from '../reliability/claude-agent-checks.js'
import { resumeAcrossProcesses, twoWriters, writers } from '../reliability/claude-agent-support.js'
import { useDatabases } from './databases.js'

const { database } = useDatabases()
const dir = mkdtempSync(join(tmpdir(), 'context-ledger-claude-pg-'))
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('the real Claude Code CLI on LedgerSessionStore, PostgreSQL', () => {
  it('a query with a tool call, resumed in a second process and compacted, is read back from the ledger', async () => {
    const url = await database()
    const run = await resumeAcrossProcesses(url, cli, dir, ['And what is 250 + 5?', '/compact'])
    await expectResumedRun(run, url)
  }, 180_000)

  it('two processes appending to one session at once lose nothing and double nothing', async () => {
    const args = writers(await database())
    const exits = await twoWriters(args[0] as AppenderArgs, args[1] as AppenderArgs)
    await expectTwoWritersKeptAll(args, exits)
  }, 120_000)
})
