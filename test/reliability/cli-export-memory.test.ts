/**
 * `context-ledger export` streams: the memory it holds live stays flat as the session grows. A child
 * process exports a session of 10,000 and one of 100,000 messages (~1 KB each: ~10 MB and ~100 MB of
 * JSON lines) into a reader slower than the export, and reports the most memory (heap and Buffers) held live beyond its
 * baseline; holding the rows or the lines would cost ~100 MB more for the large one.
 */
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../helpers/temp-store.js'
import { collect, useWorker } from './support.js'

const dir = useTempDir('context-ledger-export-memory-')
const launch = useWorker('cli-export')

async function exportOf(messages: number): Promise<{ peak: number; bytes: number }> {
  const exit = await collect(launch([dir.file(`s${messages}.db`), String(messages)]))
  expect(exit.code, exit.stderr).toBe(0)
  const r = JSON.parse(exit.lines.at(-1) ?? '{}') as { code: number; peak: number; bytes: number }
  expect(r.code).toBe(0)
  return r
}

describe('export', () => {
  it('holds the same memory for 100,000 messages as for 10,000', async () => {
    const small = await exportOf(10_000)
    const large = await exportOf(100_000)
    expect(large.bytes).toBeGreaterThan(9 * small.bytes)
    expect(large.bytes).toBeGreaterThan(100_000_000)
    // Flat: within 16 MiB of the small export's peak (what a buffered export would exceed ~6 times over).
    expect(large.peak - small.peak, JSON.stringify({ small, large })).toBeLessThan(16 * 2 ** 20)
  }, 180_000)
})
