/**
 * The Strands adapter killed mid-invocation: a child process runs a real `Agent` with the ledger's
 * manager (default `durability: 'invocation'`: an invocation's messages are written at its end, in one
 * transaction) and the parent SIGKILLs it at random moments. After every kill the file must hold every
 * invocation whose `invoke()` returned, whole invocations only (no call left open, so no repair row), and
 * a window that keeps every rule; the next process goes on with the same session.
 *
 * Default: 16 kills. `CONTEXT_LEDGER_LONG=1`: 150.
 */
import { describe, expect, it } from 'vitest'
import { openContextStore, type LedgerEntry } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { rng } from './workers/worker-kit.js'
import { collect, LONG, useWorker } from './support.js'

const KILLS = LONG ? 150 : 16
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)
const SESSION = 'strands-crash'

const dir = useTempDir('context-ledger-rel-')
const launch = useWorker('strands-crash-agent')

/** What kind of message an entry is, for checking the shape of invocations. */
function kindOf(entry: LedgerEntry): 'prompt' | 'call' | 'result' | 'answer' {
  const blocks = entry.message.content
  if (blocks.some((b) => 'toolResult' in b)) return 'result'
  if (blocks.some((b) => 'toolUse' in b)) return 'call'
  return entry.message.role === 'user' ? 'prompt' : 'answer'
}

/**
 * Splits the history into invocations and checks each is whole: a prompt, one or more calls each
 * answered by the next message, an answer. Only the session's very first prompt may stand alone: a
 * session's first message is written at once.
 */
function invocations(history: readonly LedgerEntry[]): string[] {
  const prompts: string[] = []
  let i = 0
  while (i < history.length) {
    const entry = history[i] as LedgerEntry
    expect(kindOf(entry), `seq ${entry.seq} opens an invocation`).toBe('prompt')
    const [block] = entry.message.content
    prompts.push(block !== undefined && 'text' in block ? block.text : '')
    i++
    if (i === 1 && (history[i] === undefined || kindOf(history[i] as LedgerEntry) === 'prompt')) continue
    let calls = 0
    while (history[i] !== undefined && kindOf(history[i] as LedgerEntry) === 'call') {
      expect(kindOf(history[i + 1] as LedgerEntry), `seq ${i + 1} answers the call before it`).toBe('result')
      calls++
      i += 2
    }
    expect(calls, `invocation at seq ${entry.seq} has its tool rounds`).toBeGreaterThan(0)
    expect(history[i] && kindOf(history[i] as LedgerEntry), `invocation at seq ${entry.seq} ends`).toBe(
      'answer',
    )
    i++
  }
  return prompts
}

describe('Strands adapter crash safety', () => {
  it(`keeps every invocation that returned, and whole invocations only, across ${KILLS} SIGKILLs (seed ${SEED})`, async () => {
    const path = dir.file('strands-crash.db')
    const r = rng(SEED)
    const acknowledged: string[] = []
    // Invocations that had started but not returned at a kill, and were not in the file after it.
    let lost = 0
    for (let run = 0; run < KILLS; run++) {
      const child = launch([path, SESSION, String(SEED), String(run)])
      let timer: NodeJS.Timeout | undefined
      let started: string | undefined
      const exit = await collect(child, (line) => {
        const [tag, rest] = [line.slice(0, 1), line.slice(2)]
        if (tag === 'R') timer = setTimeout(() => child.kill('SIGKILL'), r.int(5, 250))
        if (tag === 'S') started = JSON.parse(rest) as string
        if (tag === 'I') acknowledged.push(JSON.parse(rest) as string)
      })
      clearTimeout(timer)
      expect(exit.signal, `run ${run} ended by itself: ${exit.stderr}`).toBe('SIGKILL')

      const store = openContextStore(path)
      try {
        const history = store.history(SESSION, { limit: 100_000 })
        const stored = invocations(history)
        // Every acknowledged invocation is there, once; anything else is whole (written before the kill).
        for (const prompt of acknowledged)
          expect(
            stored.filter((p) => p === prompt),
            prompt,
          ).toHaveLength(1)
        if (started !== undefined && !acknowledged.includes(started) && !stored.includes(started)) lost++
        expect(history.filter((e) => e.message.metadata?.custom?.contextLedger !== undefined)).toStrictEqual(
          [],
        )
        assertWindowRules(store, SESSION)
      } finally {
        store.close()
      }
    }
    console.log(
      `strands crash safety: ${KILLS} kills, ${acknowledged.length} acknowledged invocations, ` +
        `${lost} kills mid-invocation left none of it in the file`,
    )
    expect(acknowledged.length).toBeGreaterThan(KILLS)
    expect(lost).toBeGreaterThan(0)
  }, 600_000)
})
