/**
 * What a Strands user pays per agent turn, ours against the two setups Strands offers. A real `Agent`
 * with the scripted model runs turns of four messages (prompt, tool call, tool result, answer) on top of
 * a history of 200, 2,000 and 10,000 messages, with (bench/strands-variants.ts):
 *
 *   (a)  ours:    context-ledger's PersistentConversationManager (windowSize 40) on a SQLite file, the
 *                 default `durability: 'invocation'` (a turn's messages and its window in one transaction);
 *   (a') ours with `durability: 'message'` (one transaction per message, then one for the window);
 *   (b)  sliding: Strands' SlidingWindowConversationManager (windowSize 40) + SessionManager on
 *                 LocalFileStorage — bounded, but trimmed messages are gone;
 *   (c)  full:    NullConversationManager + SessionManager on LocalFileStorage — the whole history kept,
 *                 and rewritten as one snapshot every turn.
 *
 * Per turn: median wall time, and bytes the process wrote during the turn (`wchar` of /proc/self/io;
 * file-size growth where /proc is missing), for ours including a WAL checkpoint after the measured turns;
 * beside them the turn's payload (the bytes of the JSON bodies its 4 messages are stored as) and, for (a),
 * the target of at most 25 KB written per turn. The four variants run over the same history turn by turn
 * in rotating order, so noise on a shared machine falls on all of them alike. Ratios come from this one run.
 *
 *   npx tsx bench/strands.ts            # 100 measured turns per cell
 *   npx tsx bench/strands.ts --quick    # 20 turns, 200 and 2,000 messages only
 */
import { existsSync } from 'node:fs'
import { parseOptions } from './args.js'
import { kb, kbLimit } from './harness.js'
import { LABEL, runHistory, TURN_BYTES_TARGET, type Variant } from './strands-variants.js'

const { quick } = parseOptions(process.argv.slice(2), { quick: { type: 'flag' } })
const HISTORIES = quick ? [200, 2_000] : [200, 2_000, 10_000]
const TURNS = quick ? 20 : 100
const VARIANTS: readonly Variant[] = ['ours', 'oursMessage', 'sliding', 'full']

function ratio(v: Variant, cells: Record<Variant, { msPerTurn: number; bytesPerTurn: number }>): string {
  switch (v) {
    case 'ours':
      return ''
    case 'oursMessage':
      return `bytes (a')/(a) = ${(cells.oursMessage.bytesPerTurn / cells.ours.bytesPerTurn).toFixed(1)}×`
    case 'sliding':
      return `time (a)/(b) = ${(cells.ours.msPerTurn / cells.sliding.msPerTurn).toFixed(2)}×`
    case 'full':
      return `bytes (c)/(a) = ${(cells.full.bytesPerTurn / cells.ours.bytesPerTurn).toFixed(1)}×`
  }
}

async function main(): Promise<void> {
  // One short pass of every variant first, so no variant pays for the JIT warming up.
  await runHistory(VARIANTS, 200, 10)
  const source = existsSync('/proc/self/io') ? 'wchar from /proc/self/io' : 'file-size growth'
  console.log(`Strands agent turn (4 messages, 1 tool call), ${TURNS} turns per cell; bytes = ${source}`)
  console.log("payload = bytes of the JSON bodies the turn's 4 messages are stored as\n")
  const target = `(a) ${kbLimit(TURN_BYTES_TARGET)}`
  const rows: string[][] = [
    ['history', 'variant', 'ms/turn', 'written/turn', 'payload/turn', target, 'messages kept', 'ratio'],
  ]
  for (const n of HISTORIES) {
    const cells = await runHistory(VARIANTS, n, TURNS)
    for (const v of VARIANTS) {
      const c = cells[v]
      const ours = v === 'ours' || v === 'oursMessage'
      rows.push([
        v === 'ours' ? n.toLocaleString('en-US') : '',
        LABEL[v],
        c.msPerTurn.toFixed(2),
        kb(c.bytesPerTurn),
        c.payloadPerTurn === undefined ? '' : kb(c.payloadPerTurn),
        v === 'ours' ? (c.bytesPerTurn <= TURN_BYTES_TARGET ? 'PASS' : 'MISS') : '',
        ours
          ? `${c.archived.toLocaleString('en-US')} (window ${c.agentMessages})`
          : c.archived.toLocaleString('en-US'),
        ratio(v, cells),
      ])
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(line(rows[0] as string[]))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const r of rows.slice(1)) console.log(line(r))
}

await main()
