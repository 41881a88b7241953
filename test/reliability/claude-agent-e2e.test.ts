/**
 * End to end, on a SQLite file: the real Claude Code CLI (the SDK's native binary at the installed SDK's
 * version, installed once into os.tmpdir() by test/helpers/claude-cli.ts) runs `query()` against a
 * scripted Messages API on 127.0.0.1 with `sessionStore: new LedgerSessionStore({ store })`:
 *
 * - a prompt with a call of an in-process MCP tool here; a second process resumes the session from the
 *   ledger (a fresh `CLAUDE_CONFIG_DIR`: no local transcript) for another prompt with a call, then
 *   `/compact`s it. The ledger loads exactly what both CLIs handed the store; the SDK's summary is the
 *   fold of it; the compaction is a ledger summary over the range it replaced; `store.search` and the
 *   `context-ledger` command line (src/cli through tsx) show the session, the first tool result included;
 * - two processes appending to one session at once: nothing lost, nothing doubled.
 *
 * The PostgreSQL twin is test/postgres/claude-agent-e2e.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { claudeCli } from '../helpers/claude-cli.js'
import type { AppenderArgs } from '../helpers/claude-ledger.js'
import { useTempDir } from '../helpers/temp-store.js'
import { expectResumedRun, expectTwoWritersKeptAll } from './claude-agent-checks.js'
import { resumeAcrossProcesses, twoWriters, writers } from './claude-agent-support.js'

const dir = useTempDir('context-ledger-claude-e2e-')
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)

/**
 * Runs `context-ledger <command> --json <args>` from src/ through tsx, as `npx context-ledger` runs the
 * build. A Claude ledger id starts with the project key, `-home-…` for a folder: after `--`, so it is not
 * read as an option.
 */
function ledgerCli(command: string, ...args: readonly string[]): unknown {
  const argv = ['--import', 'tsx', 'src/cli/main.ts', command, '--json', ...args]
  const run = spawnSync(process.execPath, argv, {
    cwd: join(import.meta.dirname, '..', '..'),
    encoding: 'utf8',
  })
  expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' })
  return JSON.parse(run.stdout) as unknown
}

describe('the real Claude Code CLI on LedgerSessionStore, SQLite', () => {
  it('a query with a tool call, resumed in a second process and compacted, is read back from the ledger and its CLI', async () => {
    const path = join(dir.path, 'agent.db')
    const run = await resumeAcrossProcesses(path, cli, dir.path, ['And what is 250 + 5?', '/compact'])
    const { loaded, id, resultSeq } = await expectResumedRun(run, path)

    const sessions = ledgerCli('sessions', path) as {
      sessions: { id: string; format: string; messageCount: number }[]
    }
    expect(sessions.sessions).toContainEqual(
      expect.objectContaining({ id, format: 'claude-agent', messageCount: loaded.length }),
    )
    const history = ledgerCli('history', path, '--limit', '1000', '--', id) as {
      entries: { message: SessionStoreEntry }[]
    }
    expect(history.entries.map((e) => e.message)).toStrictEqual(loaded)
    const search = ledgerCli('search', path, '4017', '--session', id) as { matches: { seq: number }[] }
    expect(search.matches.map((m) => m.seq)).toContain(resultSeq)
  }, 180_000)

  it('two processes appending to one session at once lose nothing and double nothing', async () => {
    const args = writers(join(dir.path, 'shared.db'))
    const exits = await twoWriters(args[0] as AppenderArgs, args[1] as AppenderArgs)
    await expectTwoWritersKeptAll(args, exits)
  }, 120_000)
})
