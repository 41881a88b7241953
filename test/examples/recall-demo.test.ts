/**
 * The recall demo's edges: with the fact still in the window no tool is called, and the `npm run demo`
 * entry prints the scenario in a process of its own (a ledger file it creates and closes). The scenario's
 * own assertions — the agent answers from what `search_history` and `read_history` returned — are in
 * test/adapters/strands/recall-agent.test.ts, on both backends.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRecallDemo } from '../../examples/recall-demo.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-demo-')
const ROOT = join(import.meta.dirname, '..', '..')

describe('examples/recall-demo.ts', () => {
  it('does not answer when recall is not there: the same model without the fact says so', async () => {
    const r = await runRecallDemo(dir.file('short.db'), 0)
    // With no filler turns the fact is still in the window: no tool is called, and no answer is made up.
    expect(r.factInWindowWhenAsked).toBe(true)
    expect(r.toolCalls).toStrictEqual([])
  })

  it('is printed by its entry point, exiting 0 only when the model answered from recall', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'examples', 'recall-demo.ts'), dir.file('cli.db')],
      { cwd: ROOT, encoding: 'utf8' },
    )
    expect(run.stderr).not.toMatch(/Error/)
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('the model calls search_history')
    expect(run.stdout).toContain('answered from recall: yes')
  })
})
