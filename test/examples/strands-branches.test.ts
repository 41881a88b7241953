/**
 * examples/strands-branches.ts: day 1 (a bad tool run rewound and answered again, then a canary fork
 * beside the main plan) in this process, checked against the file; then the entry point as a user runs
 * it, day 1 and `--resume` on the canary branch, each in a process of its own.
 */
import { describe, expect, it } from 'vitest'
import { CANARY, dayOne, SESSION } from '../../examples/strands-branches.js'
import { entryTexts } from '../adapters/strands/branch-helpers.js'
import { tsx } from '../helpers/demo-run.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-strands-branches-demo-')

describe('examples/strands-branches.ts', () => {
  it('rewinds the bad tool run, answers the prompt again, and keeps two plans apart', async () => {
    const store = dir.open()
    const day = await dayOne(store)
    expect(day.badAnswer).toBe('The cluster is down: abort the move.')
    expect(day.retriedAnswer).toBe('The cluster is healthy: go ahead.')
    expect(day.mainLast).toBe('OK: Move all of the traffic at once.')
    expect(day.canaryLast).toBe('OK: Move 5% of the traffic first.')
    expect(day.tree.map((b) => [b.sessionId, b.kind, b.parentId, b.forkSeq])).toStrictEqual([
      [SESSION, 'root', null, null],
      [`${SESSION}~1`, 'abandoned', SESSION, 2],
      [CANARY, 'fork', SESSION, 5],
    ])
    expect(entryTexts(store.history(`${SESSION}~1`)).slice(3)).toStrictEqual([
      'call {"cluster":"eu-2"}',
      'result eu-2: DOWN (cached 2 days ago)',
      'The cluster is down: abort the move.',
    ])
    expect(entryTexts(store.history(CANARY)).slice(6)).toStrictEqual([
      'Move 5% of the traffic first.',
      'OK: Move 5% of the traffic first.',
    ])
  })

  it('runs day 1 and then, in a second process, restarts an agent on the canary branch', () => {
    const file = dir.file('cli.db')
    const first = tsx('examples/strands-branches.ts', file)
    expect(first.stderr).not.toMatch(/Error/)
    expect(first.status).toBe(0)
    expect(first.stdout).toContain('after rewind:  The cluster is healthy: go ahead.')
    expect(first.stdout).toContain(`  ${CANARY}  fork, from ${SESSION} after seq 5`)
    expect(first.stdout).toContain(`the bad tool result, still searchable: seq 4 of ${SESSION}~1`)

    const second = tsx('examples/strands-branches.ts', file, '--resume', CANARY)
    expect(second.stderr).not.toMatch(/Error/)
    expect(second.status).toBe(0)
    expect(second.stdout).toContain(`restarted on ${CANARY}: agent.messages holds 8 messages`)
    expect(second.stdout).toContain('  OK: Move 5% of the traffic first.')
    expect(second.stdout).not.toContain('Move all of the traffic')
    expect(second.stdout).toContain('answer: OK: Now move the rest.')
  })
})
