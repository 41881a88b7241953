/**
 * `LedgerSession` under the SDK's real `run()` in several processes (worker `workers/openai-agent.ts`):
 * a second process picking the session up after the first exited, two processes running on one session
 * at once, and a process killed with SIGKILL in the middle of its runs, then resumed by a fresh one.
 * Interleaved writers mean one process's prompt can land while the other's call waits for its result:
 * the ledger answers the call with a repair row and the real result arrives late; no run may fail for
 * it. Whatever happens, every item of every finished turn is archived exactly once, and every input a
 * model is handed is valid for a provider.
 *
 * Default: 30 turns per writer. `CONTEXT_LEDGER_LONG=1`: 150, and more kills.
 */
import type { AgentInputItem } from '@openai/agents'
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { providerProblems } from '../adapters/openai-agents/helpers.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules, readHistory } from '../helpers/window-rules.js'
import { collect, LONG, readyLatch, useWorker, type WorkerExit } from './support.js'

const dir = useTempDir('context-ledger-rel-')
const launch = useWorker('openai-agent')
const TURNS = LONG ? 150 : 30
const KILLS = LONG ? 8 : 3
const SESSION = 'shared'

/** One worker's command line: `--key value` for each option, a flag for `true`. */
const argv = (options: Record<string, string | number | boolean>): string[] =>
  Object.entries(options).flatMap(([key, value]) =>
    value === true ? [`--${key}`] : value === false ? [] : [`--${key}`, String(value)],
  )

/** Runs a worker to its end. */
const runWorker = (options: Record<string, string | number | boolean>): Promise<WorkerExit> =>
  collect(launch(argv({ session: SESSION, ...options })))

/** The lines a worker printed with `tag`, without it. */
const tagged = (exit: WorkerExit, tag: string): string[] =>
  exit.lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1))

/** Asserts a worker ran its turns without a failure or an invalid input, and returns its `ok` turns. */
function expectClean(exit: WorkerExit, from: number, turns: number): void {
  expect(exit.stderr).toBe('')
  expect(exit.code).toBe(0)
  expect(exit.lines.filter((l) => !/^(ok|tool|approve|first) /.test(l))).toStrictEqual(['done'])
  expect(tagged(exit, 'ok')).toStrictEqual(Array.from({ length: turns }, (_, i) => String(from + i)))
}

/** The session's `getItems()`, read by a worker process. */
async function itemsOf(path: string): Promise<AgentInputItem[]> {
  const exit = await runWorker({ path, items: true })
  expect(exit.stderr).toBe('')
  const [json] = tagged(exit, 'items')
  return JSON.parse(json ?? 'null') as AgentInputItem[]
}

type Item = {
  type?: string
  role?: string
  callId?: string
  content?: unknown
  output?: { text?: string }
  providerData?: { contextLedger?: unknown }
}

/** What an archived item says, as a key: `prompt:<text>`, `call:<callId>`, `result:<callId>`, ... */
function keyOf(item: Item): string {
  if (item.providerData?.contextLedger !== undefined)
    return item.type === 'function_call_result' ? `repair:${item.callId}` : `note:${item.type ?? 'message'}`
  if (item.type === 'function_call') return `call:${item.callId}`
  if (item.type === 'function_call_result')
    return item.output?.text?.startsWith('result ') === true ? `result:${item.callId}` : `other-result`
  const first = Array.isArray(item.content) ? (item.content[0] as { text?: string }).text : item.content
  if (item.type === 'reasoning') return `reasoning:${String(first)}`
  if (item.role === 'user') return `prompt:${String(first)}`
  if (item.role === 'assistant') return `answer:${String(first)}`
  return `other:${item.type}`
}

/** How often each key occurs in the session's archive (every row, evicted and withdrawn ones too). */
function archive(path: string): Map<string, number> {
  const store = openContextStore(path)
  try {
    const counts = new Map<string, number>()
    for (const entry of readHistory(store, SESSION)) {
      const key = keyOf(entry.message)
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    return counts
  } finally {
    store.close()
  }
}

/**
 * The keys of what a worker's finished turns wrote: turn `from + k` is the model's calls `3k` and
 * `3k + 1` (each after a reasoning item), their results, and its answer `3k + 2` after a reasoning item.
 */
function turnKeys(name: string, tag: string, from: number, turns: number[]): string[] {
  return turns.flatMap((t) => {
    const n = 3 * (t - from)
    const ids = [n, n + 1, n + 2].map((i) => `${tag}.${i}`)
    return [
      `prompt:${name} prompt ${t}`,
      ...ids.map((id) => `reasoning:thinking ${id}`),
      ...ids.slice(0, 2).flatMap((id) => [`call:call_${id}`, `result:call_${id}`]),
      `answer:done ${ids[2]}`,
    ]
  })
}

/** Asserts every key occurs exactly once in the archive. */
function expectOnce(counts: Map<string, number>, keys: readonly string[]): void {
  const wrong = keys.filter((k) => counts.get(k) !== 1).map((k) => `${k} x${counts.get(k) ?? 0}`)
  expect(wrong).toStrictEqual([])
}

/** Asserts that what the model would be handed next (the session's `getItems()`) is valid. */
async function expectValidItems(path: string): Promise<void> {
  expect(providerProblems(await itemsOf(path))).toStrictEqual([])
}

/** Asserts every window rule of the ledger (`context-ledger check`) on the session. */
function expectWindowRules(path: string): void {
  const store = openContextStore(path)
  try {
    assertWindowRules(store, SESSION)
  } finally {
    store.close()
  }
}

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i)

describe('LedgerSession under run() in several processes', () => {
  it('picks the session up in a second process: the next input is the first process window plus the prompt', async () => {
    const path = dir.file('restart.db')
    openContextStore(path).close()
    const first = await runWorker({ path, name: 'alpha', turns: 8 })
    expectClean(first, 0, 8)
    const window = await itemsOf(path)
    expect(window.length).toBeGreaterThan(0)
    expect(providerProblems(window)).toStrictEqual([])

    const second = await runWorker({ path, name: 'beta', turns: 1, 'print-first': true })
    expectClean(second, 0, 1)
    const [input] = tagged(second, 'first')
    expect(JSON.parse(input ?? 'null')).toStrictEqual([
      ...window,
      { type: 'message', role: 'user', content: 'beta prompt 0' },
    ])

    const counts = archive(path)
    expectOnce(counts, [...turnKeys('alpha', 'alpha', 0, range(0, 8)), ...turnKeys('beta', 'beta', 0, [0])])
    expect([...counts.keys()].filter((k) => k.startsWith('other'))).toStrictEqual([])
    await expectValidItems(path)
    expectWindowRules(path)
  }, 600_000)

  it('runs two processes on one session at once: every turn ok, every item archived once, every input valid', async () => {
    const path = dir.file('two.db')
    openContextStore(path).close()
    const ready = readyLatch(2)
    const children = ['alpha', 'beta'].map((name, i) =>
      launch(argv({ path, session: SESSION, name, turns: TURNS, seed: 7 + i, wait: true })),
    )
    const exits = children.map((child) =>
      collect(child, (line) => {
        if (line === 'ready') ready.arrive()
      }),
    )
    await Promise.race([ready.all, Promise.all(exits)])
    expect(ready.arrived()).toBe(2)
    for (const child of children) child.stdin?.write('go\n')
    const runs = await Promise.all(exits)
    for (const exit of runs) {
      expect(exit.lines[0]).toBe('ready')
      expectClean({ ...exit, lines: exit.lines.slice(1) }, 0, TURNS)
    }
    const counts = archive(path)
    expectOnce(counts, [
      ...turnKeys('alpha', 'alpha', 0, range(0, TURNS)),
      ...turnKeys('beta', 'beta', 0, range(0, TURNS)),
    ])
    expect([...counts.keys()].filter((k) => k.startsWith('other'))).toStrictEqual([])
    const repairs = [...counts.keys()].filter((k) => k.startsWith('repair:'))
    // Each repaired call's real result arrived late and is archived too (checked above, once).
    console.log('calls answered by a repair row, their result arriving late:', repairs.length)
    await expectValidItems(path)
    // One writer's call waits for approval while the other's whole tool round lands before its result (no
    // prompt between, so no repair): no window may open inside that waiting pair.
    expectWindowRules(path)
  }, 600_000)

  it('loses no acknowledged turn when a process is killed mid-run, and a fresh process resumes the session', async () => {
    const path = dir.file('killed.db')
    openContextStore(path).close()
    const finished: { tag: string; from: number; turns: number[] }[] = []
    const abandoned: string[] = []
    let next = 0
    for (let k = 0; k < KILLS; k++) {
      const tag = `alpha${k}`
      // Kill at a different point each time, after a few finished turns: while a run waits for an approval
      // that never comes (its call stored, unanswered), or while a tool runs (its call not stored yet).
      const stall = k % 2 === 0 ? 2 + k / 2 : 0
      const child = launch(
        argv({ path, session: SESSION, name: 'alpha', tag, from: next, turns: TURNS, 'stall-at': stall }),
      )
      let tools = 0
      let approvals = 0
      const exit = await collect(child, (line) => {
        if (line.startsWith('tool ')) tools++
        if (line.startsWith('approve ')) approvals++
        if (stall > 0 ? approvals === stall : tools === 6 + k) child.kill('SIGKILL')
      })
      expect(exit.signal).toBe('SIGKILL')
      expect(exit.lines.filter((l) => !/^(ok|tool|approve) /.test(l))).toStrictEqual([])
      const ok = tagged(exit, 'ok').map(Number)
      expect(ok).toStrictEqual(range(next, ok.length))
      expect(ok.length).toBeGreaterThan(0)
      finished.push({ tag, from: next, turns: ok })
      // Killed while waiting for approval: that turn's first call stays unanswered until the next prompt.
      if (stall > 0) abandoned.push(`call_${tag}.${3 * ok.length}`)
      next += ok.length + 1
    }
    const rest = TURNS - next
    const last = await runWorker({ path, name: 'alpha', tag: 'fresh', from: next, turns: rest, seed: 3 })
    expectClean(last, next, rest)
    finished.push({ tag: 'fresh', from: next, turns: range(next, rest) })

    const counts = archive(path)
    expectOnce(counts, [
      ...finished.flatMap(({ tag, from, turns }) => turnKeys('alpha', tag, from, turns)),
      // The ledger answered each abandoned call with a repair row when the next process's prompt came.
      ...abandoned.flatMap((id) => [`call:${id}`, `repair:${id}`]),
    ])
    expect(abandoned.filter((id) => counts.has(`result:${id}`))).toStrictEqual([])
    await expectValidItems(path)
    expectWindowRules(path)
  }, 600_000)
})
