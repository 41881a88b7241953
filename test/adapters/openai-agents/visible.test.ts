/**
 * What the model is handed, from any window rows (`visibleItems`, pure): whatever markers, repair
 * containers, notes, calls and results the rows hold, the items are valid for a provider — no result
 * without its call before it, no reasoning item without the output item after it, no marker, no library
 * note — and a row is left out only when a marker withdrew it or a provider would refuse it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { visibleItems } from '../../../src/adapters/openai-agents/visible.js'
import { withdrawalMarker } from '../../../src/formats/openai-agents/index.js'
import type { StoredMessageData } from '../../../src/index.js'
import { fcRuns } from '../../helpers/runs.js'

const note = { contextLedger: { summary: true } }
const row = (i: number) =>
  fc.oneof(
    fc.constant({ type: 'message', role: 'user', content: `u${i}` }),
    fc.constant({ type: 'message', role: 'user', content: `s${i}`, providerData: note }),
    fc.constant({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: `a${i}` }],
    }),
    fc.constant({ type: 'reasoning', content: [{ type: 'input_text', text: `r${i}` }] }),
    fc
      .integer({ min: 0, max: 5 })
      .map((c) => ({ type: 'function_call', callId: `c${c}`, name: 'f', arguments: '{}' })),
    fc.integer({ min: 0, max: 5 }).map((c) => ({
      type: 'function_call_result',
      callId: `c${c}`,
      name: 'f',
      status: 'completed',
      output: 'x',
    })),
    fc.constant(withdrawalMarker({ before: i })),
    fc
      .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 3 }))
      .map(([from, k]) => withdrawalMarker({ seqs: [[from, from + k]] })),
  )

const rows = fc
  .array(fc.nat(), { maxLength: 24 })
  .chain((xs) => fc.tuple(...xs.map((_, i) => row(i))))
  .map((items) =>
    items.map((message, i) => ({
      seq: i === 0 && items.length > 3 ? undefined : i,
      message: message as unknown as StoredMessageData,
      pinned: false,
    })),
  )

describe('visibleItems', () => {
  it('hands over only provider-valid items, without markers or notes', () => {
    fc.assert(
      fc.property(rows, (entries) => {
        const shown = visibleItems(entries).map((v) => v.item)
        const calls = new Set<string>()
        shown.forEach((item, i) => {
          expect(JSON.stringify(item)).not.toContain('contextLedger')
          expect(item.type).not.toBe('unknown')
          if (item.type === 'function_call') calls.add(String(item.callId))
          if (item.type === 'function_call_result') expect(calls.has(String(item.callId))).toBe(true)
          if (item.type === 'reasoning') {
            let k = i + 1
            while (shown[k]?.type === 'reasoning') k++
            const next = shown[k]
            expect(next !== undefined && (next.type === 'function_call' || next.role === 'assistant')).toBe(
              true,
            )
          }
        })
      }),
      { numRuns: fcRuns(300) },
    )
  })

  it('leaves out exactly what a marker withdrew, and everything before a clear', () => {
    const user = (t: string) => ({ type: 'message', role: 'user', content: t })
    const entries = [
      user('a'),
      user('b'),
      user('c'),
      withdrawalMarker({ seqs: [[1, 2]] }),
      user('d'),
      withdrawalMarker({ before: 5 }),
      user('e'),
    ].map((message, seq) => ({ seq, message: message as unknown as StoredMessageData, pinned: false }))
    expect(visibleItems(entries.slice(0, 5)).map((v) => v.item.content)).toStrictEqual(['a', 'c', 'd'])
    expect(visibleItems(entries).map((v) => v.item.content)).toStrictEqual(['e'])
  })
})
