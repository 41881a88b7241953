/**
 * test/reliability/claude-agent-fork-e2e.test.ts on PostgreSQL (the `postgres` project's server): a
 * `forkSession` fork resumed by the real CLI in a second process as the SDK's own fork is, and `query()`
 * resuming with `forkSession: true` kept as a ledger fork — the runs of claude-agent-fork-support.ts.
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
  it.each([
    ['after an answer', 'answer'],
    ['at a tool call', 'call'],
  ] as const)(
    'a forkSession fork %s is resumed by the CLI in another process as the SDK’s own fork is',
    async (_what, at) => {
      await forkResumedElsewhere(await place(`fork-${at}`), at)
    },
    300_000,
  )

  it.each([
    ['all of it', false],
    ['up to resumeSessionAt', true],
  ])(
    'a resume with forkSession: true, %s, is a ledger fork that stores only what is new',
    async (_what, at) => {
      await resumedWithFork(await place(`resume-${String(at)}`), at)
    },
    300_000,
  )
})
