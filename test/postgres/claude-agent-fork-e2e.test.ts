/**
 * test/reliability/claude-agent-fork-e2e.test.ts on PostgreSQL (the `postgres` project's server): a
 * `forkSession` fork resumed by the real CLI in a second process as the SDK's own fork is, and `query()`
 * resuming with `forkSession: true` kept as a ledger fork — the runs of claude-agent-fork-support.ts.
 * The SQLite file runs each in two variants; here, the one with more to get wrong of each (a fork at a
 * tool call, a resume up to `resumeSessionAt`): the CLI is the same, the store is what differs, and the
 * store's fork paths are the conformance suite's (test/adapters/claude-agent-sdk/fork-*.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { claudeCli } from '../helpers/claude-cli.js'
import { forkResumedElsewhere, resumedWithFork } from '../reliability/claude-agent-fork-support.js'
import { useDatabases } from './databases.js'

const { database } = useDatabases()
const dir = mkdtempSync(join(tmpdir(), 'context-ledger-claude-fork-pg-'))
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A fresh database and a folder of the run's own. */
async function place(name: string) {
  return { location: await database(), cli, dir: mkdtempSync(join(dir, `${name}-`)) }
}

describe('forks with the real Claude Code CLI, PostgreSQL', () => {
  it('a forkSession fork at a tool call is resumed by the CLI in another process as the SDK’s own fork is', async () => {
    await forkResumedElsewhere(await place('fork-call'), 'call')
  }, 300_000)

  it('a resume with forkSession: true, up to resumeSessionAt, is a ledger fork that stores only what is new', async () => {
    await resumedWithFork(await place('resume-true'), true)
  }, 300_000)
})
