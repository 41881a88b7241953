/**
 * The report of `npm run bench -- --claude` (bench/claude-agent.ts): each side's append and load figures,
 * and ours ÷ each other side from the same run.
 */
import type { ClaudeBenchConfig, ClaudeCell, ClaudeResults } from './claude-agent.js'
import { CLAUDE_SIDES, type ClaudeSideKey } from './claude-agent-sides.js'
import { kb } from './harness.js'
import { machine } from './machine.js'
import { table, us } from './turn-timing.js'

const count = (n: number): string => n.toLocaleString('en-US')
const bytes = (b: number | undefined): string => (b === undefined ? '—' : kb(b))

/**
 * x ÷ y, as `1.23×` (`12.3×`, `123×`; two significant figures below 0.1), or `—`.
 *
 * @param x - ours
 * @param y - theirs
 * @returns the ratio's text
 */
export function ratio(x: number | undefined, y: number | undefined): string {
  if (x === undefined || y === undefined || y === 0) return '—'
  const r = x / y
  if (r >= 100) return `${r.toFixed(0)}×`
  if (r >= 10) return `${r.toFixed(1)}×`
  return r >= 0.1 ? `${r.toFixed(2)}×` : `${r.toPrecision(2)}×`
}

const OURS: readonly ClaudeSideKey[] = ['sqlite', 'postgres']

function ratios(results: ClaudeResults): string {
  const rows: string[][] = []
  const find = (cells: readonly ClaudeCell[], key: ClaudeSideKey) => cells.find((c) => c.key === key)
  for (const ours of OURS) {
    const [oa, ol] = [find(results.append, ours), find(results.load, ours)]
    if (oa === undefined || ol === undefined) continue
    for (const theirs of ['jsonl', 'memory'] as const) {
      const [ta, tl] = [find(results.append, theirs), find(results.load, theirs)]
      if (ta === undefined || tl === undefined) continue
      rows.push([
        CLAUDE_SIDES[ours],
        `÷ ${CLAUDE_SIDES[theirs]}`,
        ratio(oa.p50, ta.p50),
        ratio(oa.p95, ta.p95),
        ratio(oa.bytes, ta.bytes),
        ratio(ol.p50, tl.p50),
        ratio(ol.size, tl.size),
      ])
    }
  }
  const header = ['ours', 'against', 'append p50', 'p95', 'bytes written', 'load p50', 'on disk']
  return rows.length === 0 ? '(no ratios: the run has no side of ours)' : table(header, rows)
}

/**
 * The report.
 *
 * @param results - what `measureClaude` measured
 * @param cfg - what ran
 * @param load - the load average (1 min) at the start and at the end
 * @returns the text
 */
export function renderClaude(
  results: ClaudeResults,
  cfg: ClaudeBenchConfig,
  load: readonly [number, number],
): string {
  const appendRows = results.append.map((c) => [
    CLAUDE_SIDES[c.key],
    `append ${count(cfg.batch)}`,
    us(c.p50),
    us(c.p95),
    bytes(c.bytes),
    c.bytes === undefined ? '—' : `${count(Math.round(c.bytes / cfg.batch))} B`,
  ])
  const loadRows = results.load.map((c) => [
    CLAUDE_SIDES[c.key],
    `load ${count(cfg.loadSize)}`,
    us(c.p50),
    us(c.p95),
    bytes(c.size),
    bytes(c.bytes),
  ])
  return [
    '',
    `Machine: ${machine()}; load average ${load[0].toFixed(2)} at the start, ${load[1].toFixed(2)} at the end.`,
    `Claude Agent SDK session store calls on transcript entries made from a recorded real-CLI session, ${count(Math.round(results.entryBytes))} B of JSON an entry on average.`,
    `append: ${cfg.appends} measured batches of ${cfg.batch} entries per side into a session of ${count(cfg.history)} entries (after ${cfg.warmup} warm-up), sides in rotating order.`,
    `load: ${cfg.loads} measured loads of a ${count(cfg.loadSize)}-entry session per side, rotating.`,
    '',
    table(['side', 'call', 'time p50', 'p95', 'bytes written/call', 'per entry'], appendRows),
    '',
    table(['side', 'call', 'time p50', 'p95', 'on disk', 'bytes written/call'], loadRows),
    '',
    ratios(results),
    '',
    'bytes written: wchar of /proc/self/io over the measured calls (SQLite: with a wal_checkpoint(TRUNCATE)',
    'after them); PostgreSQL: the WAL the server generated. on disk: the JSONL file; the SQLite file (with',
    'its search index); the PostgreSQL database minus its size when empty. InMemorySessionStore writes',
    'nothing and its load returns its own array (no copy, no parse): the floor, not a store.',
    '',
  ].join('\n')
}
