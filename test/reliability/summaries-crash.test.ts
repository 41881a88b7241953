/**
 * Killed while summarizing: a child process folds its window into summaries in a loop (by ratio, by the
 * excess over a small window, regenerating and dropping them), with a summarizer that sleeps a random few
 * ms, and the parent SIGKILLs it at random moments — before the plan, while the summarizer runs, during
 * the write. After every kill the parent opens the file and checks that it is whole: every window rule
 * (the checker knows summaries and their chains), every acknowledged message byte-identical, every
 * acknowledged summary there with the messages it folded, every summary row whole (its ranges and count
 * consistent, exactly the current one open), and — since nothing but a fold takes a message out of this
 * window — every message before the boundary either in the window or folded into the summary the window
 * shows: no fold's range without its summary, no summary without its fold.
 *
 * Default: 16 kills. `CONTEXT_LEDGER_LONG=1`: 160.
 */
import { describe, expect, it } from 'vitest'
import { openContextStore, type SummaryRecord } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { rng, SUMMARY_CRASH_RANGES } from './workers/worker-kit.js'
import { collect, LONG, useWorker } from './support.js'

const KILLS = LONG ? 160 : 16
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)
const SESSION = 'folds'

const dir = useTempDir('context-ledger-sum-')
const launch = useWorker('summary-crash-writer')

interface Acknowledged {
  /** trackingId → the JSON the worker appended and saw return. */
  messages: Map<string, string>
  /** Summary id → its `seqs` JSON, for every summary whose write returned. */
  summaries: Map<number, string>
  /** Summaries whose drop returned. */
  dropped: Set<number>
}

/** Runs one worker until the kill, folding its acknowledgements into `ack`; returns how it ended. */
async function runAndKill(
  path: string,
  run: number,
  ack: Acknowledged,
  r: ReturnType<typeof rng>,
): Promise<{
  signal: NodeJS.Signals | null
  stderr: string
  folds: number
  at: 'summarizer' | 'write' | 'other'
}> {
  const child = launch([path, SESSION, String(SEED), String(run)])
  let timer: NodeJS.Timeout | undefined
  let folds = 0
  let at: 'summarizer' | 'write' | 'other' = 'other'
  const exit = await collect(child, (line) => {
    const [tag, a, b] = line.split(' ', 3)
    if (tag === 'R') {
      timer = setTimeout(() => child.kill('SIGKILL'), r.int(20, 600))
    } else if (tag === 'z') {
      at = 'summarizer'
    } else if (tag === 'Z') {
      at = 'write'
    } else if (tag === 'A') {
      at = 'other'
      const json = line.slice(2)
      ack.messages.set((JSON.parse(json) as { trackingId: string }).trackingId, json)
    } else if (tag === 'S' && a !== undefined && b !== undefined) {
      ack.summaries.set(Number(a), b)
      folds++
      at = 'other'
    } else if (tag === 'D' && a !== undefined) {
      ack.dropped.add(Number(a))
    }
  })
  clearTimeout(timer)
  return { signal: exit.signal, stderr: exit.stderr, folds, at }
}

/** Every summary row is whole: ranges ascending and half-open within the archive, counted, ended once. */
function checkRows(summaries: readonly SummaryRecord[], n: number): void {
  for (const s of summaries) {
    let last = -1
    let count = 0
    for (const [lo, hi] of s.seqs) {
      expect(lo > last && lo < hi && hi <= n, `summary ${s.id} seqs ${JSON.stringify(s.seqs)}`).toBe(true)
      last = hi
      count += hi - lo
    }
    expect(count, `summary ${s.id} messageCount`).toBe(s.messageCount)
    expect(s.fromBoundary).toBeLessThanOrEqual(s.toBoundary)
    expect(s.tokens).toBeGreaterThan(0)
    expect(s.message.content.length).toBeGreaterThan(0)
    expect(s.endReason === undefined).toBe(s.current)
  }
}

/** Opens the file as a restarted process would and checks everything. */
function verify(path: string, ack: Acknowledged): { summaries: number; folded: number } {
  const store = openContextStore(path)
  try {
    expect(store.connection().pragma('integrity_check', { simple: true })).toBe('ok')
    expect(store.connection().pragma('foreign_key_check')).toStrictEqual([])
    const report = assertWindowRules(store, SESSION, SUMMARY_CRASH_RANGES, { appended: ack.messages })
    const n = report.messageCount
    checkRows(report.summaries, n)
    const byId = new Map(report.summaries.map((s) => [s.id, s]))
    for (const [id, seqs] of ack.summaries) {
      const s = byId.get(id)
      expect(s, `acknowledged summary ${id}`).toBeDefined()
      expect(JSON.stringify(s?.seqs)).toBe(seqs)
    }
    for (const id of ack.dropped) expect(byId.get(id)?.endReason).toBe('dropped')
    // Only folds take messages out of this window: what is before the boundary and not in the window is
    // exactly what the summary the window shows stands for.
    const inWindow = new Set(report.windowSeqs)
    const chain = new Set(report.chainSeqs)
    for (let s = 0; s < report.boundary; s++)
      if (!inWindow.has(s)) expect(chain.has(s), `seq ${s} left the window without a summary`).toBe(true)
    for (const s of chain) expect(s).toBeLessThan(report.boundary)
    if (report.summary !== undefined) expect(report.summary.toBoundary).toBe(report.boundary)
    return { summaries: report.summaries.length, folded: chain.size }
  } finally {
    store.close()
  }
}

describe('crash safety of summaries', () => {
  it(`keeps every fold whole across ${KILLS} SIGKILLs (seed ${SEED})`, async () => {
    const path = dir.file('folds.db')
    const r = rng(SEED)
    const ack: Acknowledged = { messages: new Map(), summaries: new Map(), dropped: new Set() }
    const started = Date.now()
    let seen = { summaries: 0, folded: 0 }
    let folds = 0
    const killedAt = { summarizer: 0, write: 0, other: 0 }
    for (let run = 0; run < KILLS; run++) {
      const exit = await runAndKill(path, run, ack, r)
      expect(exit.signal, `run ${run} ended by itself: ${exit.stderr}`).toBe('SIGKILL')
      folds += exit.folds
      killedAt[exit.at]++
      seen = verify(path, ack)
    }
    console.log(
      `summary crash safety: ${KILLS} kills in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${ack.messages.size} acknowledged messages, ${folds} acknowledged summaries ` +
        `(${ack.dropped.size} dropped), ${seen.summaries} in the ledger, ${seen.folded} messages folded; ` +
        `killed while the summarizer ran ${killedAt.summarizer} times, after it answered ${killedAt.write}`,
    )
    expect(folds).toBeGreaterThan(0)
    if (KILLS >= 100) expect(killedAt.summarizer).toBeGreaterThan(0)
  }, 600_000)
})
