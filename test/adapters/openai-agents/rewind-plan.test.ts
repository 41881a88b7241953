/**
 * The rewind planning of `popItem` and `replace_suffix` (pure, `rewind-plan.ts`). The property: take a
 * session written the way sessions were before branches — turns with tool calls, and withdrawal markers
 * from pops (a popped result hiding its call), clears and replaced suffixes — and rewind it at any
 * point; with the marker the rewind appends (what the leaving markers withdrew, carried over), the model
 * sees exactly what it saw before, minus the rows that left. Plus the rules by example: a popped result
 * takes its call (and a parallel group's earlier calls) with it, and ranges merge.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  callSeqs,
  carriedOver,
  danglingCalls,
  mergeRanges,
  popStart,
} from '../../../src/adapters/openai-agents/rewind-plan.js'
import { markerFor } from '../../../src/adapters/openai-agents/transactions.js'
import { visibleItems, type VisibleItem } from '../../../src/adapters/openai-agents/visible.js'
import { withdrawalMarker } from '../../../src/formats/openai-agents/index.js'
import type { PortWindowEntry } from '../../../src/adapters/port.js'
import type { StoredMessageData } from '../../../src/index.js'
import { fcRuns } from '../../helpers/runs.js'

const user = (t: string) => ({ type: 'message', role: 'user', content: t })
const said = (t: string) => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: t }],
})
const call = (id: string) => ({ type: 'function_call', callId: id, name: 'f', arguments: '{}' })
const result = (id: string) => ({
  type: 'function_call_result',
  callId: id,
  name: 'f',
  status: 'completed',
  output: `out ${id}`,
})

const entry = (message: unknown, seq: number, pinned = false): PortWindowEntry => ({
  seq,
  message: message as StoredMessageData,
  pinned,
})
const entriesOf = (rows: readonly unknown[], pinned: ReadonlySet<number> = new Set()) =>
  rows.map((m, seq) => entry(m, seq, pinned.has(seq)))
const seen = (items: readonly VisibleItem[]) => items.map((v) => [v.seq, v.item])

type Op =
  | { kind: 'turn'; calls: number }
  | { kind: 'pop' }
  | { kind: 'clear' }
  | { kind: 'replace'; take: number }
  | { kind: 'pin'; back: number }

/** A session the way the adapter wrote it before branches: every withdrawal a marker row. */
function legacySession(ops: readonly Op[]): { rows: unknown[]; pinned: Set<number> } {
  const rows: unknown[] = []
  const pinned = new Set<number>()
  let n = 0
  const shown = () => visibleItems(entriesOf(rows, pinned))
  for (const op of ops) {
    if (op.kind === 'turn') {
      const ids = Array.from({ length: op.calls }, () => `c${n++}`)
      rows.push(user(`u${n}`), ...ids.map(call), ...ids.map(result), said(`a${n++}`))
    } else if (op.kind === 'pin') {
      if (rows.length > 0) pinned.add(Math.max(0, rows.length - 1 - op.back))
    } else if (op.kind === 'clear') {
      if (shown().length > 0) rows.push(withdrawalMarker({ before: rows.length }))
    } else {
      const now = shown()
      const gone = op.kind === 'pop' ? now.slice(-1) : now.slice(-op.take)
      if (gone.length === 0) continue
      rows.push(markerFor(gone))
      if (op.kind === 'replace') rows.push(said(`replacement ${n++}`))
    }
  }
  return { rows, pinned }
}

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 3 }).map((calls) => ({ kind: 'turn' as const, calls })), weight: 4 },
  { arbitrary: fc.constant({ kind: 'pop' as const }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
  {
    arbitrary: fc.integer({ min: 1, max: 4 }).map((take) => ({ kind: 'replace' as const, take })),
    weight: 2,
  },
  { arbitrary: fc.integer({ min: 0, max: 5 }).map((back) => ({ kind: 'pin' as const, back })), weight: 1 },
)

describe('rewinding a session that holds markers', () => {
  it('shows exactly what it showed before, minus the rows that left', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), fc.nat(), (ops, pick) => {
        const { rows, pinned } = legacySession(ops)
        if (rows.length < 2) return
        const from = 1 + (pick % (rows.length - 1))
        const before = entriesOf(rows, pinned)
        const carried = carriedOver(
          before.map((e) => ({ seq: e.seq ?? -1, message: e.message })),
          from,
          callSeqs(before),
        )
        const after = before.filter((e) => (e.seq ?? -1) < from)
        if (carried.seqs.length > 0)
          after.push(entry(withdrawalMarker({ seqs: carried.seqs }, undefined, carried.pinned), from))
        expect(seen(visibleItems(after))).toStrictEqual(
          seen(visibleItems(before).filter((v) => (v.seq ?? -1) < from)),
        )
      }),
      { numRuns: fcRuns(400) },
    )
  })

  it('carries a pinned marker on as pinned, and a clear as the range below it', () => {
    const rows = [user('a'), said('b'), withdrawalMarker({ seqs: [[1, 2]] }, undefined, true), user('c')]
    expect(
      carriedOver(
        rows.map((message, seq) => ({ seq, message })),
        2,
      ),
    ).toStrictEqual({
      seqs: [[1, 2]],
      pinned: true,
    })
    const cleared = [user('a'), said('b'), withdrawalMarker({ before: 2 }), user('c')]
    expect(
      carriedOver(
        cleared.map((message, seq) => ({ seq, message })),
        1,
      ).seqs,
    ).toStrictEqual([[0, 1]])
    expect(
      carriedOver(
        cleared.map((message, seq) => ({ seq, message })),
        3,
      ).seqs,
    ).toStrictEqual([])
  })
})

describe('where a pop starts', () => {
  const shownOf = (rows: unknown[]) => visibleItems(entriesOf(rows))

  it('at the popped item, or at the call of a popped result', () => {
    const rows = [user('q'), call('x'), result('x'), said('a')]
    expect(popStart(shownOf(rows), 3)).toBe(3)
    expect(popStart(shownOf(rows.slice(0, 3)), 2)).toBe(1)
  })

  it('at the first call of a parallel group whose results leave', () => {
    const rows = [user('q'), call('x'), call('y'), result('x'), result('y')]
    expect(popStart(shownOf(rows), 4)).toBe(1)
    const sequential = [user('q'), call('x'), result('x'), call('y'), result('y')]
    expect(popStart(shownOf(sequential), 4)).toBe(3)
  })
})

describe('the calls a replaced suffix would leave alone', () => {
  const rows = [user('q'), call('x'), call('y'), result('x'), result('y')]
  const entries = entriesOf(rows)
  const shown = visibleItems(entries)

  it('are the calls before the rewind point whose results leave, unless the replacement answers them', () => {
    expect(danglingCalls(shown, 3, callSeqs(entries), new Set())).toStrictEqual([[1, 3]])
    expect(danglingCalls(shown, 4, callSeqs(entries), new Set())).toStrictEqual([[2, 3]])
    expect(danglingCalls(shown, 4, callSeqs(entries), new Set(['y']))).toStrictEqual([])
    expect(danglingCalls(shown, 1, callSeqs(entries), new Set())).toStrictEqual([])
  })
})

describe('mergeRanges', () => {
  it('sorts, joins touching and overlapping ranges, drops empty ones', () => {
    expect(
      mergeRanges([
        [5, 6],
        [0, 2],
        [2, 3],
        [4, 4],
        [1, 2],
        [5, 9],
      ]),
    ).toStrictEqual([
      [0, 3],
      [5, 9],
    ])
  })
})
