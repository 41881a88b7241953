/**
 * Forks end to end, on SQLite files: the real Claude Code CLI (test/helpers/claude-cli.ts) against the
 * scripted Messages API, on `LedgerSessionStore` — `forkSession` resumed by a second process as the
 * SDK's own fork is, and `query()` resuming with `forkSession: true` kept as a ledger fork (the runs and
 * what they must show: claude-agent-fork-support.ts); and examples/claude-agent-fork.ts run as documented.
 * The PostgreSQL twin is test/postgres/claude-agent-fork-e2e.test.ts.
 */
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { claudeCli } from '../helpers/claude-cli.js'
import { calcModel } from '../helpers/claude-model.js'
import { standInEnv, startStandIn } from '../helpers/claude-stand-in.js'
import { useTempDir } from '../helpers/temp-store.js'
import { forkResumedElsewhere, resumedWithFork, type ForkRunPlace } from './claude-agent-fork-support.js'
import { collect } from './support.js'

const dir = useTempDir('context-ledger-claude-fork-e2e-')
let cli = ''
beforeAll(async () => {
  cli = await claudeCli()
}, 15 * 60_000)

/** A SQLite file and a folder of the run's own. */
function place(name: string): ForkRunPlace {
  const own = join(dir.path, name)
  mkdirSync(own)
  return { location: join(own, 'agent.db'), cli, dir: own }
}

describe('forks with the real Claude Code CLI, SQLite', () => {
  it.each([
    ['after an answer', 'answer'],
    ['at a tool call', 'call'],
  ] as const)(
    'a forkSession fork %s is resumed by the CLI in another process as the SDK’s own fork is',
    async (_what, at) => {
      await forkResumedElsewhere(place(`fork-${at}`), at)
    },
    300_000,
  )

  it.each([
    ['all of it', false],
    ['up to resumeSessionAt', true],
  ])(
    'a resume with forkSession: true, %s, is a ledger fork that stores only what is new',
    async (_what, at) => {
      await resumedWithFork(place(`resume-${String(at)}`), at)
    },
    300_000,
  )

  it('examples/claude-agent-fork.ts runs as documented', async () => {
    const standIn = await startStandIn(calcModel())
    try {
      // The example makes its own CLAUDE_CONFIG_DIR.
      const env = Object.fromEntries(
        Object.entries({ ...standInEnv(standIn.url, dir.path), CLAUDE_CODE_PATH: cli }).filter(
          ([name]) => name !== 'CLAUDE_CONFIG_DIR',
        ),
      )
      const root = join(import.meta.dirname, '..', '..')
      const example = join(root, 'examples', 'claude-agent-fork.ts')
      const child = spawn(process.execPath, ['--import', 'tsx', example, join(dir.path, 'example.db')], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exit = await collect(child)
      expect({ code: exit.code, stderr: exit.stderr }).toStrictEqual({ code: 0, stderr: '' })
      const out = exit.lines.join('\n')
      expect(out).toMatch(/forkSession: [0-9a-f-]{36} answered "You said: Make the cat name shorter\."/)
      expect(out).toMatch(/resume with forkSession: [0-9a-f-]{36} answered/)
      expect(out).toMatch(/ {2}[0-9a-f-]{36} {2}fork at seq \d+: \d+ entries/)
      expect(out).toContain('rows shared, not copied: yes')
    } finally {
      await standIn.close()
    }
  }, 300_000)
})
