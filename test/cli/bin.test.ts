/**
 * The executable as a person runs it: a real process (`src/cli/main.ts` under tsx; the package test runs
 * the built one from the tarball with `npx`). Exit codes reach the shell, an error is one line with no
 * stack trace, and a reader that goes away early (`| head`) is no error.
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAIN = join(ROOT, 'src', 'cli', 'main.ts')

let dir: TempDir
beforeAll(() => {
  dir = tempDir('context-ledger-bin-')
  const store = openContextStore(dir.file('agent.db'))
  for (let i = 0; i < 200; i++)
    store.append('s', { role: 'user', content: [{ text: `message ${i} ${'x'.repeat(200)}` }] })
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

function run(args: string[], shell?: string): { status: number | null; stdout: string; stderr: string } {
  const r =
    shell === undefined
      ? spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, encoding: 'utf8' })
      : spawnSync('sh', ['-c', shell], { cwd: ROOT, encoding: 'utf8' })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('context-ledger, the process', () => {
  it('exits 0 with results, 2 with one line and no stack trace for a missing file', () => {
    const ok = run(['sessions', dir.file('agent.db'), '--json'])
    expect(ok.status, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({ sessions: [{ id: 's', messageCount: 200 }] })
    const missing = run(['window', dir.file('nope.db'), 's'])
    expect(missing.status).toBe(2)
    expect(missing.stderr.trim().split('\n')).toStrictEqual([
      `context-ledger: ${dir.file('nope.db')}: no such file; check the path (reading never creates a ledger)`,
    ])
  })

  it('stops quietly when its reader goes away', () => {
    const cmd = `node --import tsx ${MAIN} export ${dir.file('agent.db')} s | head -n 2`
    const r = run([], cmd)
    expect(r.stdout.split('\n').filter((l) => l.startsWith('{'))).toHaveLength(2)
    expect(r.stderr).not.toMatch(/EPIPE|Error/)
  })
})
