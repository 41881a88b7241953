/**
 * The commands of the branch property tests, as fast-check arbitraries, and the messages they append.
 * A command names the session it acts on by an index into the tree's live sessions (taken modulo their
 * count), and a message by an index into that session's conversation, so every command applies to any
 * tree a run has grown.
 */
import fc from 'fast-check'
import type { StoredMessageData } from '../../src/index.js'
import { turnShape, type TurnShape } from './conversations.js'
import type { OpenCall } from './branch-model.js'

/** Window limits a command applies. */
export interface Limits {
  readonly windowSize: number
  readonly tokenBudget: number | undefined
  readonly first: number
  readonly last: number
}

/** Bad input the store must refuse, writing nothing. */
export type BadInput =
  'fork-past-end' | 'fork-taken-id' | 'rewind-past-end' | 'fork-both' | 'fork-missing-session'

/** One step of a run. */
export type Command =
  | { kind: 'append'; on: number; turn: TurnShape; take: number; answer: 'all' | 'some' | 'none' }
  | { kind: 'late'; on: number; pick: number }
  | { kind: 'echo'; on: number; pick: number }
  | { kind: 'fork'; on: number; at: number | 'end'; byTrackingId: boolean; named: boolean }
  | { kind: 'rewind'; on: number; at: number; named: boolean }
  | { kind: 'pin' | 'unpin'; on: number; at: number }
  | { kind: 'apply'; on: number; limits: Limits; mode: 'apply' | 'overflow' }
  | { kind: 'summarize'; on: number; ratio: number; preserve: number }
  | { kind: 'delete'; on: number; subtree: boolean }
  | { kind: 'bad'; on: number; what: BadInput }

const on = fc.nat({ max: 50 })

/** Random window limits, as the other property tests draw them. */
export const limits: fc.Arbitrary<Limits> = fc.record({
  windowSize: fc.integer({ min: 1, max: 14 }),
  tokenBudget: fc.option(fc.integer({ min: 20, max: 700 }), { nil: undefined }),
  first: fc.integer({ min: 0, max: 3 }),
  last: fc.integer({ min: 0, max: 3 }),
})

/** Every command, weighted so trees grow, diverge and are windowed often. */
export const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      on,
      turn: turnShape,
      take: fc.integer({ min: 1, max: 8 }),
      answer: fc.constantFrom('all' as const, 'all' as const, 'some' as const, 'none' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('late' as const), on, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('echo' as const), on, pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('fork' as const),
      on,
      at: fc.oneof(fc.constant('end' as const), fc.nat()),
      byTrackingId: fc.boolean(),
      named: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), on, at: fc.nat(), named: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), on, at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unpin' as const), on, at: fc.nat() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('apply' as const),
      on,
      limits,
      mode: fc.constantFrom('apply' as const, 'apply' as const, 'overflow' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('summarize' as const),
      on,
      ratio: fc.double({ min: 0.1, max: 0.8, noNaN: true }),
      preserve: fc.integer({ min: 0, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), on, subtree: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bad' as const),
      on,
      what: fc.constantFrom<BadInput>(
        'fork-past-end',
        'fork-taken-id',
        'rewind-past-end',
        'fork-both',
        'fork-missing-session',
      ),
    }),
  },
)

/** Mints the ids of a run's messages and calls: unique across the whole tree. */
export class Ids {
  private n = 0

  constructor(private readonly prefix: string) {}

  /** A fresh id. */
  next(kind: string): string {
    return `${this.prefix}-${kind}${this.n++}`
  }
}

/** A user message answering `calls` (successfully). */
export function resultsFor(
  calls: readonly Pick<OpenCall, 'id'>[],
  ids: Ids,
  text = 'result',
): StoredMessageData {
  return {
    role: 'user',
    content: calls.map((c) => ({
      toolResult: { toolUseId: c.id, status: 'success' as const, content: [{ text: `${text} ${c.id}` }] },
    })),
    trackingId: ids.next('m'),
  }
}

/** One turn of a shape: the user's request, its tool rounds (parallel calls each answered), the reply. */
export function turnMessages(t: TurnShape, ids: Ids): StoredMessageData[] {
  const out: StoredMessageData[] = [
    { role: 'user', content: [{ text: `q ${'x'.repeat(t.userChars)}` }], trackingId: ids.next('m') },
  ]
  for (const parallel of t.rounds) {
    const calls = Array.from({ length: parallel }, () => ({ id: ids.next('call') }))
    out.push({
      role: 'assistant',
      content: calls.map((c) => ({ toolUse: { name: 'lookup', toolUseId: c.id, input: { q: c.id } } })),
      trackingId: ids.next('m'),
    })
    out.push(resultsFor(calls, ids))
  }
  if (!t.noReply)
    out.push({
      role: 'assistant',
      content: [{ text: `a ${'y'.repeat(t.replyChars)}` }],
      trackingId: ids.next('m'),
    })
  return out
}

/**
 * What an `append` command sends: the results of the calls the session waits for (all, half — the store
 * answers the rest with a repair row — or none, when the turn's request comes first), then a turn, cut
 * to `take` messages (so a session may end waiting for a call).
 */
export function appendBatch(
  c: Extract<Command, { kind: 'append' }>,
  open: readonly OpenCall[],
  ids: Ids,
): StoredMessageData[] {
  const answered =
    c.answer === 'all' ? open : c.answer === 'some' ? open.slice(0, Math.ceil(open.length / 2)) : []
  const first = answered.length > 0 ? [resultsFor(answered, ids)] : []
  return [...first, ...turnMessages(c.turn, ids)].slice(0, c.take)
}

const turn = (rounds: number[], noReply = false): TurnShape => ({
  rounds,
  replyChars: 30,
  userChars: 40,
  noReply,
})

/**
 * Runs the branch property starts with, so the cases random runs reach only now and then are reached on
 * every backend every time: deletes refused over a live child and of a subtree, a fold over the summary a
 * branch inherited, a rewind to before a fork point, a result for a call only a sibling made.
 */
export const EXAMPLES: [TurnShape[], Command[]][] = [
  [
    [turn([])],
    [
      { kind: 'fork', on: 0, at: 'end', byTrackingId: false, named: true },
      { kind: 'fork', on: 1, at: 'end', byTrackingId: true, named: true },
      { kind: 'delete', on: 0, subtree: false },
      { kind: 'delete', on: 0, subtree: true },
      { kind: 'fork', on: 0, at: 0, byTrackingId: false, named: false },
      { kind: 'delete', on: 0, subtree: false },
    ],
  ],
  [
    [turn([1]), turn([2])],
    [
      { kind: 'summarize', on: 0, ratio: 0.4, preserve: 0 },
      { kind: 'fork', on: 0, at: 'end', byTrackingId: false, named: true },
      { kind: 'append', on: 1, turn: turn([1], true), take: 3, answer: 'all' },
      { kind: 'summarize', on: 1, ratio: 0.5, preserve: 1 },
      { kind: 'fork', on: 1, at: 'end', byTrackingId: false, named: true },
      { kind: 'append', on: 0, turn: turn([1]), take: 4, answer: 'all' },
      { kind: 'late', on: 2, pick: 4 },
      { kind: 'late', on: 2, pick: 0 },
      { kind: 'append', on: 1, turn: turn([]), take: 2, answer: 'some' },
      { kind: 'rewind', on: 2, at: 3, named: false },
      {
        kind: 'apply',
        on: 2,
        limits: { windowSize: 3, tokenBudget: undefined, first: 1, last: 1 },
        mode: 'apply',
      },
    ],
  ],
]
