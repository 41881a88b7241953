/**
 * The recall demo end to end: a real Strands `Agent` with the scripted model, whose early fact left the
 * window, calls `search_history` then `read_history` and answers from what they returned — and the
 * `npm run demo` entry prints it, in a process of its own.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FACT, runRecallDemo } from '../../examples/recall-demo.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-recall-demo-')
const ROOT = join(import.meta.dirname, '..', '..')

describe('examples/recall-demo.ts', () => {
  it('answers from what search_history and read_history returned, the fact long out of the window', async () => {
    const r = await runRecallDemo(dir.file('recall.db'))
    expect(r.factInWindowWhenAsked).toBe(false)
    expect(r.evicted).toMatchObject({ cut: 'trim-point', reason: 'window-size' })
    expect(r.toolCalls.map((c) => c.name)).toStrictEqual(['search_history', 'read_history'])
    expect(r.toolCalls[1]?.input).toStrictEqual({ fromSeq: r.factSeq, toSeq: r.factSeq })
    // The search named the fact's seq as out of the window; the read gave its text back.
    expect(r.toolResults[0]).toMatch(
      new RegExp(`^- seq ${r.factSeq} \\(user, no longer in your context`, 'm'),
    )
    expect(r.toolResults[1]).toContain(FACT)
    expect(r.answer).toBe('The on-call engineer is Priya Raman (pager 4471), as you told me at seq 0.')
  })

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
