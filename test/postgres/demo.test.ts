/**
 * `npm run demo -- --postgres` end to end, on the suite's server (`--url`, a fresh database): three
 * workers serve sessions, a search finds evicted turns and the eviction log says why one left, a Strands
 * agent answers from recall, and a new process sees the same window. Exit 0 only when all of that held.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeBackend } from '../helpers/backend.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})
const ROOT = join(import.meta.dirname, '..', '..')

describe('npm run demo -- --postgres', () => {
  it('runs the fleet, search, the eviction log and recall with an agent, and exits 0', async () => {
    const url = await backend.freshLocation()
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'examples', 'postgres-demo.ts'), '--turns', '60', '--url', url],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    )
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^ {2}seq \d+ \(evicted\): /m)
    expect(run.stdout).toMatch(/left the window at .* by a trim-point cut \(window-size\), with seqs \d+–\d+/)
    expect(run.stdout).toContain(
      'answer: "The on-call engineer is Priya Raman (pager 4471), as you told me at seq 0."',
    )
    expect(run.stdout).toContain('answered from recall: yes')
    expect(run.stdout).toContain('the same as the workers saw')
  })
})
