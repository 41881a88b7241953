/**
 * What the LangChain process tests share (worker `workers/langchain-agent.ts`): its command line, the
 * keys of what its turns write — so an archive can be compared with what each process's finished turns
 * must have left there, exactly once — and readings of a ledger file: its archive as keys, `check` on the
 * whole file, the thread's window.
 */
import { expect } from 'vitest'
import { expandRepair, LC_NOTES_KEY } from '../../src/formats/langchain/index.js'
import { LEDGER_ID_PREFIX } from '../../src/adapters/langchain/index.js'
import { openContextStore } from '../../src/index.js'
import { pairingProblems } from '../adapters/langchain/helpers.js'
import { cli } from '../cli/support.js'
import { readHistory } from '../helpers/window-rules.js'
import { collect, type WorkerExit, type WorkerLauncher } from './support.js'

/** A message as LangChain stores it: `{ type, data }`. */
type Body = { type: string; data: Record<string, unknown> }

/** A worker's options: `--key value` each, a flag for `true`. */
export type WorkerOptions = Record<string, string | number | boolean>

/** One worker's command line. */
export const argv = (options: WorkerOptions): string[] =>
  Object.entries(options).flatMap(([key, value]) =>
    value === true ? [`--${key}`] : value === false ? [] : [`--${key}`, String(value)],
  )

/** Runs a worker to its end. */
export const runWorker = (launch: WorkerLauncher, options: WorkerOptions): Promise<WorkerExit> =>
  collect(launch(argv(options)))

/** The lines a worker printed with `tag`, without it. */
export const tagged = (exit: WorkerExit, tag: string): string[] =>
  exit.lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1))

/** The lines of a worker that are neither progress nor `done`: failures, invalid inputs, stalls. */
export const unexpected = (exit: WorkerExit): string[] =>
  exit.lines.filter((l) => !/^(ok|tool|state|first|ready) /.test(l) && l !== 'ready' && l !== 'done')

/**
 * Asserts a worker ran turns `from`… to its end: no failure, no invalid model input, every turn `ok`.
 *
 * @param exit - how it ended
 * @param from - its first turn
 * @param turns - how many
 */
export function expectClean(exit: WorkerExit, from: number, turns: number): void {
  expect(exit.stderr).toBe('')
  expect(exit.code).toBe(0)
  expect(unexpected(exit)).toStrictEqual([])
  expect(exit.lines.at(-1)).toBe('done')
  expect(tagged(exit, 'ok')).toStrictEqual(Array.from({ length: turns }, (_, i) => String(from + i)))
}

/** The worker's prompt of turn `t` as LangChain stores it (`toDict()`). */
export const promptDict = (name: string, t: number, tag = name): Body => ({
  type: 'human',
  data: {
    content: `${name} prompt ${t}`,
    additional_kwargs: {},
    response_metadata: {},
    id: `${tag}.human.${t}`,
  },
})

/** Asserts the first model input a worker printed (`--print-first`) is `expected`. */
export function expectFirstInput(exit: WorkerExit, expected: readonly Body[]): void {
  expect(JSON.parse(tagged(exit, 'first')[0] ?? 'null')).toStrictEqual(expected)
}

/**
 * The keys of the three model calls from `n`: the model's message `n` making two lookups, their results,
 * message `n + 1` making one, its result, and the answer `n + 2`. With `pin`, the second call of `n` is
 * `pin_message`'s (same key shape: a result by call id).
 */
export function stepKeys(tag: string, n: number): string[] {
  const call = (m: number, k: number) => `result:call-${tag}.${m}-${k}`
  return [
    `ai:ai-${tag}.${n}`,
    call(n, 0),
    call(n, 1),
    `ai:ai-${tag}.${n + 1}`,
    call(n + 1, 0),
    `ai:ai-${tag}.${n + 2}`,
  ]
}

/** The keys of a worker's finished turns `turns` (numbered from `from`, the worker's first). */
export const turnKeys = (tag: string, from: number, turns: readonly number[]): string[] =>
  turns.flatMap((t) => [`human:${tag}.human.${t}`, ...stepKeys(tag, 3 * (t - from))])

/**
 * What a row says, as keys: `human:<id>`, `ai:<id>`, `result:<tool_call_id>`, `repair:<tool_call_id>` per
 * call a repair answers, `other:<type>` for anything else.
 */
export function keysOf(body: Body): string[] {
  const notes = (body.data.additional_kwargs as Record<string, unknown> | undefined)?.[LC_NOTES_KEY]
  if (notes !== undefined) {
    if (body.type !== 'tool') return [`other:${body.type}`]
    return expandRepair(body as never).map((r) => `repair:${String((r as Body).data.tool_call_id)}`)
  }
  if (body.type === 'tool') return [`result:${String(body.data.tool_call_id)}`]
  if (body.type === 'human' || body.type === 'ai') return [`${body.type}:${String(body.data.id)}`]
  return [`other:${body.type}`]
}

/** The archive of `thread` (every row, evicted ones too), as keys in seq order. */
export function archiveKeys(path: string, thread: string): string[] {
  const store = openContextStore(path)
  try {
    return readHistory(store, thread).flatMap((e) => keysOf(e.message as unknown as Body))
  } finally {
    store.close()
  }
}

/**
 * The ids of the thread's stored messages, and every id starting `context-ledger:` a window may give a
 * row the ledger made or shows rewritten — for "every message of the list is in the ledger".
 */
export function archiveIds(path: string, thread: string): (id: string) => boolean {
  const store = openContextStore(path)
  try {
    const ids = new Set(readHistory(store, thread).map((e) => String((e.message as unknown as Body).data.id)))
    return (id) => ids.has(id) || id.startsWith(LEDGER_ID_PREFIX)
  } finally {
    store.close()
  }
}

/** Asserts each key occurs exactly once in `keys`. */
export function expectOnce(keys: readonly string[], expected: readonly string[]): void {
  const counts = new Map<string, number>()
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1)
  const wrong = expected.filter((k) => counts.get(k) !== 1).map((k) => `${k} x${counts.get(k) ?? 0}`)
  expect(wrong).toStrictEqual([])
  const twice = [...counts].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`)
  expect(twice).toStrictEqual([])
}

/** Asserts `context-ledger check` passes on the whole file. */
export async function expectCheck(path: string): Promise<void> {
  const run = await cli(['check', path, '--json'])
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, rulesChecked: true, problems: [] })
  expect(run.code).toBe(0)
}

/** The thread's window, as a worker process reads it (`toDict()`s). */
export async function windowOf(
  launch: WorkerLauncher,
  path: string,
  thread: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const exit = await runWorker(launch, { path, thread, window: true })
  expect(exit.stderr).toBe('')
  return JSON.parse(tagged(exit, 'window')[0] ?? 'null') as Body[]
}

/** Asserts the thread's window is what a provider accepts: every call with its results, in place. */
export async function expectValidWindow(launch: WorkerLauncher, path: string, thread: string): Promise<void> {
  const { mapStoredMessagesToChatMessages } = await import('@langchain/core/messages')
  const window = await windowOf(launch, path, thread)
  expect(window.length).toBeGreaterThan(0)
  expect(pairingProblems(mapStoredMessagesToChatMessages(window as never))).toStrictEqual([])
}

/** `count` numbers from `from`. */
export const range = (from: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => from + i)
