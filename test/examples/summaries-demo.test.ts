/**
 * `npm run demo:summaries` runs as documented: a fresh process folds a scripted conversation into a chain
 * of summaries, regenerates one from the raw archive, and checks the archive byte for byte — it exits 0
 * only when every check it prints holds.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-demo-')
const ROOT = join(import.meta.dirname, '..', '..')

describe('examples/summaries-demo.ts', () => {
  it('folds, regenerates and finds the archive intact, in a process of its own', () => {
    const path = dir.file('demo.db')
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'examples', 'summaries-demo.ts'), path, '--turns', '60'],
      { cwd: ROOT, encoding: 'utf8' },
    )
    expect(run.stderr).not.toMatch(/Error/)
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('60 turns, 240 messages in the archive')
    expect(run.stdout).toContain('byte-identical to what was appended: yes')
    expect(run.stdout).toContain('the same window, summary included: yes')
    expect(run.stdout).toMatch(/regenerated #\d+ from the raw archive as #\d+ \(tally-v2\)/)
  })
})
