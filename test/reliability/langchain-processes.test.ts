/**
 * `ledgerMiddleware` under LangChain's real `createAgent` in several processes (worker
 * `workers/langchain-agent.ts`: a scripted model making parallel and single tool calls, three model calls a
 * turn, window limits small enough that the window moves every turn): a second process picking the thread
 * up after the first exited, two threads in two processes at once, two processes on one thread at once
 * (with and without keepStateToWindow), and processes killed with SIGKILL during a tool call and right
 * after the model answered, then resumed by fresh ones. Whatever happens, every message of every finished turn is archived exactly once, every
 * model input pairs every call with its results, and `context-ledger check` passes on the file.
 *
 * Default: 20 turns per writer. `CONTEXT_LEDGER_LONG=1`: 100, and more kills.
 */
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import {
  archiveKeys,
  argv,
  expectCheck,
  expectClean,
  expectOnce,
  expectFirstInput,
  expectValidWindow,
  promptDict,
  range,
  runWorker,
  stepKeys,
  tagged,
  turnKeys,
  unexpected,
  windowOf,
  type WorkerOptions,
} from './langchain-support.js'
import { collect, LONG, readyLatch, useWorker, type WorkerExit } from './support.js'

const dir = useTempDir('context-ledger-lc-')
const launch = useWorker('langchain-agent')
const TURNS = LONG ? 100 : 20
const THREAD = 'T'

const run = (options: WorkerOptions): Promise<WorkerExit> => runWorker(launch, { thread: THREAD, ...options })

/** Starts workers together (each prints `ready` once open, and starts on a line on stdin). */
async function together(workers: readonly WorkerOptions[]): Promise<WorkerExit[]> {
  const ready = readyLatch(workers.length)
  const children = workers.map((options) => launch(argv({ thread: THREAD, ...options, wait: true })))
  const exits = children.map((child) =>
    collect(child, (line) => {
      if (line === 'ready') ready.arrive()
    }),
  )
  await Promise.race([ready.all, Promise.all(exits)])
  expect(ready.arrived()).toBe(workers.length)
  for (const child of children) child.stdin?.write('go\n')
  return Promise.all(exits)
}

describe('ledgerMiddleware under createAgent in several processes', () => {
  it('picks the thread up in a second process: its first model input is the window the first left, plus the prompt', async () => {
    const path = dir.file('restart.db')
    const first = await run({ path, name: 'alpha', turns: 6, pin: true })
    expectClean(first, 0, 6)
    const window = await windowOf(launch, path, THREAD)
    // The first prompt was pinned (pin_message at position 0): long evicted from the tail, still shown.
    expect(window[0]?.data.id).toBe('alpha.human.0')
    expect(window.some((m) => m.data.id === 'ai-alpha.0')).toBe(false)
    expect(window.some((m) => m.type === 'tool')).toBe(true)

    const second = await run({ path, name: 'beta', turns: 2, 'print-first': true })
    expectClean(second, 0, 2)
    expectFirstInput(second, [...window, promptDict('beta', 0)])

    // One writer at a time: the archive is every turn's messages once, in order, nothing else.
    expect(archiveKeys(path, THREAD)).toStrictEqual([
      ...turnKeys('alpha', 0, range(0, 6)),
      ...turnKeys('beta', 0, range(0, 2)),
    ])
    await expectValidWindow(launch, path, THREAD)
    await expectCheck(path)
  }, 600_000)

  it('runs two threads in two processes at once on one file: each complete, each apart', async () => {
    const path = dir.file('threads.db')
    openContextStore(path).close()
    const exits = await together([
      { path, thread: 'T1', name: 'alpha', turns: TURNS, seed: 3 },
      { path, thread: 'T2', name: 'beta', turns: TURNS, seed: 4 },
    ])
    for (const exit of exits) expectClean(exit, 0, TURNS)
    expect(archiveKeys(path, 'T1')).toStrictEqual(turnKeys('alpha', 0, range(0, TURNS)))
    expect(archiveKeys(path, 'T2')).toStrictEqual(turnKeys('beta', 0, range(0, TURNS)))
    for (const thread of ['T1', 'T2']) await expectValidWindow(launch, path, thread)
    await expectCheck(path)
  }, 600_000)

  // With keepStateToWindow, each run's graph state is cut to a window holding the other's messages too.
  for (const keepState of [false, true])
    it(`runs two processes on one thread at once${keepState ? ', the state kept to the window' : ''}: nothing lost, nothing twice, every input paired`, async () => {
      const path = dir.file(`shared-${keepState}.db`)
      openContextStore(path).close()
      const exits = await together([
        { path, name: 'alpha', turns: TURNS, seed: 7, 'keep-state': keepState },
        { path, name: 'beta', turns: TURNS, seed: 8, 'keep-state': keepState },
      ])
      for (const exit of exits) expectClean(exit, 0, TURNS)
      const keys = archiveKeys(path, THREAD)
      const expected = [...turnKeys('alpha', 0, range(0, TURNS)), ...turnKeys('beta', 0, range(0, TURNS))]
      expectOnce(keys, expected)
      // Anything more is the ledger's repair of a call whose result was not there when the other
      // writer's message came; the real result came late, and is archived too (once, checked above).
      const more = keys.filter((k) => !expected.includes(k))
      expect(more.filter((k) => !k.startsWith('repair:'))).toStrictEqual([])
      expect(more.filter((k) => !keys.includes(k.replace(/^repair:/, 'result:')))).toStrictEqual([])
      console.log('calls answered by a repair row, their result arriving late:', more.length)
      await expectValidWindow(launch, path, THREAD)
      await expectCheck(path)
    }, 600_000)
})

/** Where a worker is killed: at the `k`-th occasion of a kind (see the worker). */
const KILLS = [
  'tool:4',
  'answered:5',
  'stored:9',
  'stored:4',
  'tool:2',
  ...(LONG ? ['answered:1', 'stored:8', 'tool:9', 'answered:9'] : []),
]

/**
 * The keys a turn killed at model call `n` left (`from` its worker's first turn): its prompt, the steps
 * before `n`, the model's message `n` if it was stored, and — the next prompt coming first — a repair of
 * each call of `n` left unanswered.
 */
function killedKeys(tag: string, t: number, from: number, kind: string, n: number): string[] {
  const step = n - 3 * (t - from)
  const steps = stepKeys(tag, n - step)
  const before = steps.slice(0, [0, 3, 5][step])
  if (kind === 'answered') return [`human:${tag}.human.${t}`, ...before]
  const repairs = range(0, 2 - step).map((k) => `repair:call-${tag}.${n}-${k}`)
  return [`human:${tag}.human.${t}`, ...before, `ai:ai-${tag}.${n}`, ...repairs]
}

describe('a process killed with SIGKILL mid-run', () => {
  it('loses nothing committed, stores nothing twice, and the next process resumes the thread', async () => {
    const path = dir.file('killed.db')
    openContextStore(path).close()
    const expected: string[] = []
    let next = 0
    for (const [i, stall] of KILLS.entries()) {
      const tag = `alpha${i}`
      const child = launch(
        argv({ path, thread: THREAD, name: 'alpha', tag, from: next, turns: TURNS, stall }),
      )
      const exit = await collect(child, (line) => {
        if (line.startsWith('stall ')) child.kill('SIGKILL')
      })
      expect(exit.signal).toBe('SIGKILL')
      const [line] = unexpected(exit)
      expect(unexpected(exit)).toHaveLength(1)
      const [kind, turn, at] = (line ?? '').split(' ').slice(1)
      expect(`${kind}:${stall.split(':')[1]}`).toBe(stall)
      const ok = tagged(exit, 'ok').map(Number)
      expect(ok).toStrictEqual(range(next, ok.length))
      expect(Number(turn)).toBe(next + ok.length)
      const n = Number((at ?? '').split('.')[0])
      expected.push(...turnKeys(tag, next, ok), ...killedKeys(tag, Number(turn), next, kind ?? '', n))
      next += ok.length + 1
    }
    const rest = TURNS - next
    const last = await run({ path, name: 'alpha', tag: 'fresh', from: next, turns: rest, seed: 3 })
    expectClean(last, next, rest)
    expected.push(...turnKeys('fresh', next, range(next, rest)))

    // One writer at a time: exactly what was committed, once, in order; each call a killed process left
    // open answered by a repair row as the next prompt came.
    expect(archiveKeys(path, THREAD)).toStrictEqual(expected)
    await expectValidWindow(launch, path, THREAD)
    await expectCheck(path)
  }, 600_000)
})
