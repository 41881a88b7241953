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
 * - a subagent (the CLI's `Agent` tool): its transcript under its `subpath`, listed by `listSubkeys`,
 *   loaded as the CLI wrote it, deleted with its session;
 * - two processes appending to one session at once: nothing lost, nothing doubled.
 *
 * The PostgreSQL twin is test/postgres/claude-agent-e2e.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { claudeCli } from '../helpers/claude-cli.js'
import { openSessions, type AppenderArgs } from '../helpers/claude-ledger.js'
import { calcModel } from '../helpers/claude-model.js'
import { RecordingSessionStore } from '../helpers/claude-recording-store.js'
import { runOptions, runQuery } from '../helpers/claude-run.js'
import { startStandIn } from '../helpers/claude-stand-in.js'
import { useTempDir } from '../helpers/temp-store.js'
import { expectResumedRun, expectTwoWritersKeptAll } from './claude-agent-checks.js'
import { concatenated, resumeAcrossProcesses, twoWriters, writers } from './claude-agent-support.js'

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

  it("a subagent's transcript lands under its subpath, listed and loaded as the CLI wrote it", async () => {
    const standIn = await startStandIn(calcModel())
    const { ledger, sessions } = await openSessions(join(dir.path, 'agent.db'))
    try {
      const recording = new RecordingSessionStore(sessions)
      const cwd = join(dir.path, 'project')
      mkdirSync(cwd)
      const setup = { cli, url: standIn.url, cwd, sessionStore: recording, scratch: dir.path }
      const { sessionId } = await runQuery('delegate: what is 3 + 4?', runOptions(setup))
      const main = { projectKey: recording.appends[0]?.key.projectKey ?? '', sessionId }
      const subpaths = [...new Set(recording.appends.flatMap((a) => a.key.subpath ?? []))]
      const [subpath = ''] = subpaths
      expect(subpaths).toHaveLength(1)
      expect(subpath).toMatch(/^subagents\/agent-[0-9a-f]+$/)
      expect(await sessions.listSubkeys(main)).toStrictEqual(subpaths)
      for (const key of [main, { ...main, subpath }])
        expect(await sessions.load(key)).toStrictEqual(concatenated(recording.appends, key))
      // The subagent's own tool call and result are in its transcript; the main one lists one session.
      const sub = JSON.stringify(await sessions.load({ ...main, subpath }))
      expect(sub).toContain('"text":"7"')
      expect((await sessions.listSessions(main.projectKey)).map((s) => s.sessionId)).toStrictEqual([
        sessionId,
      ])
      await sessions.delete(main)
      expect(await sessions.listSubkeys(main)).toStrictEqual([])
      expect(await sessions.load({ ...main, subpath })).toBeNull()
    } finally {
      await ledger.close()
      await standIn.close()
    }
  }, 120_000)

  it('two processes appending to one session at once lose nothing and double nothing', async () => {
    const args = writers(join(dir.path, 'shared.db'))
    const exits = await twoWriters(args[0] as AppenderArgs, args[1] as AppenderArgs)
    await expectTwoWritersKeptAll(args, exits)
  }, 120_000)
})
