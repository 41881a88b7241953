/**
 * `ledgerMiddleware({ keepStateToWindow: true })` beside LangGraph's `SqliteSaver` checkpointer (a second
 * file), across processes (worker `workers/langchain-agent.ts`): a restart resumes from checkpoint and
 * ledger — the first model input of the second process is the window the first left, plus the prompt — and
 * a process killed during a tool call or right after its model answered is picked up by the next one,
 * either by LangGraph resuming the interrupted run (`invoke(null)`) or by a new prompt. Whatever the path,
 * the ledger holds every message once — the model's message a killed process had only checkpointed is
 * stored from the checkpoint, once — the checkpoint holds the window only, and `check` passes.
 */
import { BaseMessage } from '@langchain/core/messages'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { describe, expect, it } from 'vitest'
import { useTempDir } from '../helpers/temp-store.js'
import {
  archiveIds,
  archiveKeys,
  argv,
  expectCheck,
  expectClean,
  expectFirstInput,
  expectValidWindow,
  keysOf,
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
import { collect, useWorker, type WorkerExit } from './support.js'
import { LANGCHAIN_LIMITS } from './workers/worker-kit.js'

const dir = useTempDir('context-ledger-lc-cp-')
const launch = useWorker('langchain-agent')
const THREAD = 'T'
/** The graph state at the end of a turn: the window of its last model call, and that call's answer. */
const STATE_MAX = LANGCHAIN_LIMITS.windowSize + 3

const run = (options: WorkerOptions) => runWorker(launch, { thread: THREAD, 'keep-state': true, ...options })

/**
 * The messages the thread's newest checkpoint holds: `state`, its state's; `pending`, those its pending
 * writes add (the writes of a step's finished tasks, saved before the step's checkpoint: LangGraph applies
 * them when the thread is resumed, `invoke(null)`, and drops them when it is given new input).
 */
async function checkpointed(file: string): Promise<{ state: BaseMessage[]; pending: BaseMessage[] }> {
  const saver = SqliteSaver.fromConnString(file)
  try {
    const tuple = await saver.getTuple({ configurable: { thread_id: THREAD } })
    const state = (tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages
    const pending = (tuple?.pendingWrites ?? [])
      .filter(([, channel]) => channel === 'messages')
      .flatMap(([, , value]) => (Array.isArray(value) ? value : [value]) as unknown[])
    return { state: state ?? [], pending: pending.filter((m) => BaseMessage.isInstance(m)) }
  } finally {
    saver.db.close()
  }
}

/** The ids of the messages the thread's newest checkpoint holds in its state. */
const checkpointIds = async (file: string): Promise<string[]> =>
  (await checkpointed(file)).state.map((m) => String(m.id))

/** Messages as archive keys. */
const keysOfAll = (messages: readonly BaseMessage[]): string[] =>
  messages.flatMap((m) => keysOf(m.toDict() as never))

/** Asserts every graph state a worker reported was the window's size, not the history's. */
function expectStateBounded(exit: WorkerExit): void {
  const sizes = tagged(exit, 'state').map((l) => Number(l.split(' ')[1]))
  expect(sizes.length).toBeGreaterThan(0)
  expect(sizes.filter((n) => n > STATE_MAX)).toStrictEqual([])
}

describe('keepStateToWindow beside a SqliteSaver checkpointer, across processes', () => {
  it('resumes from checkpoint and ledger after a restart: the window the first process left, plus the prompt', async () => {
    const [path, checkpoint] = [dir.file('ledger.db'), dir.file('checkpoint.db')]
    const first = await run({ path, checkpoint, name: 'alpha', turns: 6 })
    expectClean(first, 0, 6)
    expectStateBounded(first)
    const window = await windowOf(launch, path, THREAD)
    // The checkpoint holds the window and the last answer, every message of it in the ledger.
    const saved = await checkpointIds(checkpoint)
    expect(saved.length).toBeLessThanOrEqual(STATE_MAX)
    expect(saved.filter((id) => !archiveIds(path, THREAD)(id))).toStrictEqual([])

    const second = await run({ path, checkpoint, name: 'beta', turns: 2, 'print-first': true })
    expectClean(second, 0, 2)
    expectStateBounded(second)
    expectFirstInput(second, [...window, promptDict('beta', 0)])
    expect(archiveKeys(path, THREAD)).toStrictEqual([
      ...turnKeys('alpha', 0, range(0, 6)),
      ...turnKeys('beta', 0, range(0, 2)),
    ])
    await expectValidWindow(launch, path, THREAD)
    await expectCheck(path)
  }, 600_000)

  // A turn is three model calls: the 4th lookup is turn 1's first (model call 3, two parallel calls);
  // the 5th answer is turn 1's second model call (4, one call). `sync`: LangGraph writes each step's
  // checkpoint before the next step; `async` (its default): while the next step runs, so a kill may
  // come before the model's message reaches the checkpoint — both outcomes are checked.
  const cases = [
    { stall: 'tool:4', n: 3, calls: 2, stored: true },
    { stall: 'answered:5', n: 4, calls: 1, stored: false },
  ] as const
  for (const durability of ['sync', 'async'] as const)
    for (const { stall, n, calls, stored } of cases)
      for (const resume of [true, false])
        it(`killed at ${stall} (durability ${durability}), then ${resume ? 'the run resumed (invoke(null))' : 'a new prompt'}: every message once`, async () => {
          const name = `${stall}-${durability}-${resume}`.replace(':', '')
          const [path, checkpoint] = [dir.file(`l-${name}.db`), dir.file(`c-${name}.db`)]
          const options = { path, checkpoint, thread: THREAD, 'keep-state': true, durability }
          const child = launch(argv({ ...options, name: 'alpha', turns: 4, stall }))
          const killed = await collect(child, (line) => {
            if (line.startsWith('stall ')) child.kill('SIGKILL')
          })
          expect(killed.signal).toBe('SIGKILL')
          expect(unexpected(killed)).toStrictEqual([
            `stall ${stall.split(':')[0]} 1 ${n}${calls === 2 ? '.0' : ''}`,
          ])
          expect(tagged(killed, 'ok')).toStrictEqual(['0'])
          // What the killed process committed to the ledger: turn 0, turn 1's prompt and steps before
          // `n`, and the model's message `n` if the ledger's afterModel ran.
          const before = [
            ...turnKeys('alpha', 0, [0]),
            'human:alpha.human.1',
            ...stepKeys('alpha', 3).slice(0, n === 3 ? 0 : 3),
          ]
          const ai = `ai:ai-alpha.${n}`
          expect(archiveKeys(path, THREAD)).toStrictEqual(stored ? [...before, ai] : before)
          // The checkpoint holds turn 1 as far as the ledger has it, and perhaps the model's message `n`:
          // in its state, or only in the pending writes of the step that made it.
          const saved = await checkpointed(checkpoint)
          const [inState, inPending] = [keysOfAll(saved.state), keysOfAll(saved.pending)]
          expect(before.slice(7).filter((k) => !inState.includes(k))).toStrictEqual([])
          if (durability === 'sync') expect(inState).toContain(ai)
          const recovered = inState.includes(ai) || (resume && inPending.includes(ai))

          const next = await run({ ...options, name: 'beta', from: 2, turns: 2, resume, seed: 5 })
          expect(next.stderr).toBe('')
          expect(next.code).toBe(0)
          expect(unexpected(next)).toStrictEqual([])
          expect(tagged(next, 'ok')).toStrictEqual(resume ? ['resume', '2', '3'] : ['2', '3'])
          expectStateBounded(next)
          // The model's message `n`, stored by the killed process or from the checkpoint by the next,
          // is in the ledger once. Resumed from a checkpoint holding it, its calls run and get their
          // results; otherwise the next message makes the ledger answer them with a repair row.
          // Resumed from a checkpoint without it, LangGraph calls the model again.
          const kept = stored || recovered
          const answered = resume && recovered
          const results = range(0, calls).map((k) => `${answered ? 'result' : 'repair'}:call-alpha.${n}-${k}`)
          const after = resume
            ? [
                ...stepKeys('beta', 0),
                ...[2, 3].flatMap((t) => [`human:beta.human.${t}`, ...stepKeys('beta', 3 * (t - 1))]),
              ]
            : turnKeys('beta', 2, [2, 3])
          expect(archiveKeys(path, THREAD)).toStrictEqual([
            ...before,
            ...(kept ? [ai, ...results] : []),
            ...after,
          ])
          const held = archiveIds(path, THREAD)
          expect((await checkpointIds(checkpoint)).filter((id) => !held(id))).toStrictEqual([])
          await expectValidWindow(launch, path, THREAD)
          await expectCheck(path)
        }, 600_000)
})
