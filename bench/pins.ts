/**
 * Pins must not make each other slower: the cost of pinning an evicted message, of an append followed
 * by `applyWindow()`, and of `window()`, in one session holding 100, 1,000 and 10,000 pins. Each pin
 * brings an evicted message (and, for a tool call, its result) back into the window, so the window holds
 * every pinned message: `window()` grows with them by design (it returns them), the other two must not.
 *
 * Run by `npm run bench` (section d). Each run builds a fresh session; the figures are the medians over
 * runs of each run's median, and every ratio is taken inside a run before the median over runs.
 */
import { openContextStore, PersistentConversationManager, type MessageData } from '../src/index.js'
import { TurnFactory } from './fixtures.js'
import { median, pair, summarize, timeUs, type PairRun, type Row, type Scratch } from './harness.js'

/** Pin counts measured, smallest first: the ratios are against the first. */
const LEVELS = [100, 1_000, 10_000] as const
/** Pins timed at each level (each adds one pin; negligible against the level). */
const PIN_SAMPLES = 200
/** Turns (4 messages each) appended and applied at each level. */
const TURN_SAMPLES = 60
/** `window()` calls at each level. */
const WINDOW_SAMPLES = 30
const WINDOW = 40

/** One run: per-operation median µs at each level. */
interface PinRun {
  pin: number[]
  turn: number[]
  window: number[]
}

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/**
 * The seq of the `i`-th message to pin: the user message or the tool call of turn `i` (alternately), all
 * of them evicted long ago.
 */
function pinSeq(i: number): number {
  return 4 * i + (i % 2 === 0 ? 0 : 1)
}

function runOnce(scratch: Scratch, r: number): PinRun {
  const store = openContextStore(scratch.file(`pins-${r}.db`))
  const manager = new PersistentConversationManager({ store, sessionId: 'pins', windowSize: WINDOW })
  const turns = new TurnFactory(`P${r}`, 10 + r)
  const highest = (LEVELS.at(-1) as number) + PIN_SAMPLES * LEVELS.length
  for (let done = 0; done < highest + 100; done += 250) {
    manager.append(turns.turns(250))
    manager.applyWindow()
  }
  const out: PinRun = { pin: [], turn: [], window: [] }
  let pinned = 0
  for (const level of LEVELS) {
    while (pinned < level) manager.pin({ seq: pinSeq(pinned++) })
    manager.applyWindow()
    const pins: number[] = []
    for (let i = 0; i < PIN_SAMPLES; i++) {
      const seq = pinSeq(pinned++)
      pins.push(timeUs(() => manager.pin({ seq })))
    }
    const appends: number[] = []
    for (let i = 0; i < TURN_SAMPLES; i++) {
      const turn: MessageData[] = turns.turn()
      appends.push(
        timeUs(() => {
          manager.append(turn)
          manager.applyWindow()
        }),
      )
    }
    const windows: number[] = []
    for (let i = 0; i < WINDOW_SAMPLES; i++) windows.push(timeUs(() => manager.window()))
    out.pin.push(median(pins))
    out.turn.push(median(appends))
    out.window.push(median(windows))
    log(
      `  run ${r + 1}, ${level.toLocaleString('en-US')} pins: pin ${median(pins).toFixed(0)} µs, ` +
        `append + applyWindow ${median(appends).toFixed(0)} µs, window() ${median(windows).toFixed(0)} µs ` +
        `(${manager.window().length.toLocaleString('en-US')} msgs)`,
    )
  }
  store.close()
  return out
}

/**
 * (d) cost per pin, per append + `applyWindow()`, and of `window()`, at 100, 1,000 and 10,000 pins.
 *
 * @param scratch - where the session files go
 * @param runs - how many fresh sessions to measure
 * @returns table rows: each level against 100 pins
 */
export function benchPins(scratch: Scratch, runs: number): Row[] {
  const results: PinRun[] = []
  for (let r = 0; r < runs; r++) results.push(runOnce(scratch, r))
  const rows: Row[] = []
  const ops: { key: keyof PinRun; label: string; target: number | undefined }[] = [
    { key: 'pin', label: 'pin an evicted message', target: 2 },
    { key: 'turn', label: 'append a turn + applyWindow()', target: undefined },
    { key: 'window', label: 'window() (holds every pin)', target: undefined },
  ]
  for (const { key, label, target } of ops)
    for (let l = 1; l < LEVELS.length; l++) {
      const pairs: PairRun[] = results.map((run) => pair(run[key][l] as number, run[key][0] as number))
      const level = (LEVELS[l] as number).toLocaleString('en-US')
      const last = l === LEVELS.length - 1
      rows.push(summarize(`${label}: ${level} vs 100 pins`, pairs, last ? target : undefined))
    }
  return rows
}
