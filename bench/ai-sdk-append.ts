/**
 * Row a2 of `npm run bench`: the cost of deriving an AI SDK `ModelMessage`'s facts on append, against
 * today's Strands-format append (row a). Same harness as row a: two files, each session filled with 1,000
 * messages first, then the same 4-message agent turn appended to each, interleaved call by call
 * (`interleavedRun`, rotating order), median per run, ratio inside each run, median over runs.
 *
 *   Strands turn: user text, assistant text + toolUse, user toolResult, assistant text (`TurnFactory`);
 *   AI SDK turn:  user text, assistant text + tool-call, tool message with its tool-result, assistant text
 *                 (`ModelTurnFactory`) — the same texts from the same seeded source, so the same payload
 *                 give or take the two shapes' own keys (both sizes are printed).
 *
 * Target (issue 22): at most 1.3× the Strands turn. `npx tsx bench/ai-sdk-append.ts [--runs N]` runs it
 * alone (also part of `npm run bench -- --ai-sdk`).
 */
import { pathToFileURL } from 'node:url'
import { openContextStore, PersistentConversationManager, type MessageData } from '../src/index.js'
import { parseOptions } from './args.js'
import { ModelTurnFactory } from './ai-sdk-fixtures.js'
import { FILL_BATCH_TURNS, TextSource, TurnFactory } from './fixtures.js'
import { interleavedRun, pair, renderTable, Scratch, summarize, type PairRun, type Row } from './harness.js'
import { machine } from './machine.js'

/** Target: an AI SDK ModelMessage turn's append costs at most this many times the Strands turn's. */
export const MODEL_APPEND_TARGET = 1.3
/** The window of both sessions, as row a's. */
const WINDOW = 40
/** Calls per run, as row a's. */
const ITERATIONS = 400

/** Bytes of a turn's stored JSON bodies. */
function payload(turn: readonly object[]): number {
  return turn.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0)
}

/**
 * Appends of the AI SDK turn against the Strands turn, interleaved.
 *
 * @param scratch - where the two files go
 * @param runs - runs (each `ITERATIONS` calls per side)
 * @returns the ratio row, and the two turns' payload sizes (for the report's notes)
 */
export function benchModelAppend(
  scratch: Scratch,
  runs: number,
): { row: Row; bytes: { strands: number; model: number } } {
  const strandsStore = openContextStore(scratch.file('append-strands.db'))
  const modelStore = openContextStore(scratch.file('append-model.db'))
  const strands = new PersistentConversationManager({
    store: strandsStore,
    sessionId: 'append',
    windowSize: WINDOW,
  })
  const model = new PersistentConversationManager({
    store: modelStore,
    sessionId: 'append',
    windowSize: WINDOW,
    format: 'ai-sdk/model',
  })
  const s = new TurnFactory('a', 1)
  const texts = new TextSource(1)
  const m = new ModelTurnFactory('a', (n) => texts.text(n))
  strands.append(s.turns(FILL_BATCH_TURNS))
  // The manager's types are Strands' (`MessageData`); with `format: 'ai-sdk/model'` it takes ModelMessages.
  model.append(m.turns(FILL_BATCH_TURNS) as unknown as MessageData[])
  const vs: PairRun[] = []
  for (let r = 0; r < runs; r++) {
    const a = Array.from({ length: ITERATIONS }, () => m.turn() as unknown as MessageData[])
    const b = Array.from({ length: ITERATIONS }, () => s.turn())
    const [o, t] = interleavedRun(ITERATIONS, [
      (i) => model.append(a[i] ?? []),
      (i) => strands.append(b[i] ?? []),
    ]) as [number, number]
    vs.push(pair(o, t))
  }
  const bytes = { strands: payload(strands.window().slice(-4)), model: payload(model.window().slice(-4)) }
  strandsStore.close()
  modelStore.close()
  return { row: summarize('append one turn: AI SDK ModelMessage vs Strands', vs, MODEL_APPEND_TARGET), bytes }
}

/**
 * The row and its notes, as text.
 *
 * @param runs - runs
 * @returns the report
 */
export function runModelAppend(runs: number): string {
  const scratch = new Scratch()
  try {
    const { row, bytes } = benchModelAppend(scratch, runs)
    return [
      '',
      `Machine: ${machine()}`,
      `Medians of ${runs} runs of ${ITERATIONS} interleaved calls; ratio inside each run, then the median.`,
      '',
      renderTable([row]),
      '',
      `Stored bodies of the last turn: AI SDK ${bytes.model} B, Strands ${bytes.strands} B (with its trackingIds).`,
      '',
    ].join('\n')
  } finally {
    scratch.dispose()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const o = parseOptions(process.argv.slice(2), { runs: { type: 'integer', min: 1 } })
  process.stdout.write(runModelAppend(o.runs ?? 7))
}
