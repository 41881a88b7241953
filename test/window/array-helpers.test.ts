/**
 * The pure array helpers that mirror Strands 1.19's: the pin flag (`isPinned`, `pinMessage`,
 * `unpinMessage`), where a window may start (`findValidTrimPoint`, `adjustSplitPointForToolPairs`) and
 * `matchesMessageType`, with the signatures and results of Strands' own helpers.
 */
import { describe, expect, it } from 'vitest'
import {
  adjustSplitPointForToolPairs,
  findValidTrimPoint,
  isPinned,
  matchesMessageType,
  pinMessage,
  unpinMessage,
  type MessageData,
} from '../../src/index.js'
import { assistant, toolResult, toolUse, user } from '../helpers/messages.js'
import { refusal } from '../helpers/refusal.js'

// Short forms: these cases are arrays written inline.
const u = (text = 'u'): MessageData => user(text)
const a = (text = 'a'): MessageData => assistant(text)
const tu = (id: string, role: MessageData['role'] = 'assistant'): MessageData => ({ ...toolUse(id), role })
const tr = (id: string): MessageData => toolResult(id, 'r')

describe('isPinned', () => {
  it('reads only a strict boolean flag', () => {
    expect(isPinned(u())).toBe(false)
    expect(isPinned({ ...u(), metadata: { custom: {} } })).toBe(false)
    expect(isPinned({ ...u(), metadata: { custom: { pinned: true } } })).toBe(true)
    expect(isPinned({ ...u(), metadata: { custom: { pinned: false } } })).toBe(false)
    expect(isPinned({ ...u(), metadata: { custom: { pinned: 'true' } } })).toBe(false)
  })

  it('protects the adjacent tool-pair partner with a matching id', () => {
    expect(isPinned([pinMessage(tu('1')), tr('1')], 1)).toBe(true)
    expect(isPinned([tu('1'), pinMessage(tr('1'))], 0)).toBe(true)
    expect(isPinned([pinMessage(tu('1')), tr('2')], 1)).toBe(false)
    expect(isPinned([pinMessage(u()), u()], 1)).toBe(false)
    expect(isPinned([u()], 5)).toBe(false)
  })
})

describe('pinMessage', () => {
  it('returns a new message with the flag, keeping trackingId and other metadata', () => {
    const m: MessageData = {
      ...u(),
      trackingId: 'id-1',
      metadata: { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, custom: { my: 1 } },
    }
    const pinned = pinMessage(m)
    expect(pinned).not.toBe(m)
    expect(pinned).toStrictEqual({
      ...u(),
      trackingId: 'id-1',
      metadata: {
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        custom: { my: 1, pinned: true },
      },
    })
    expect(m.metadata?.custom).toStrictEqual({ my: 1 })
  })
})

describe('unpinMessage', () => {
  it('drops empty custom and metadata objects', () => {
    expect(unpinMessage(pinMessage(u()))).toStrictEqual(u())
    expect(unpinMessage({ ...u(), metadata: { custom: { pinned: true, other: 1 } } })).toStrictEqual({
      ...u(),
      metadata: { custom: { other: 1 } },
    })
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
    expect(unpinMessage({ ...u(), metadata: { usage, custom: { pinned: true } } })).toStrictEqual({
      ...u(),
      metadata: { usage },
    })
  })
})

describe('findValidTrimPoint', () => {
  it('finds the first user message without toolResult whose toolUse is answered', () => {
    expect(findValidTrimPoint([u()], 0)).toBe(0)
    expect(findValidTrimPoint([a(), u()], 0)).toBe(1)
    expect(findValidTrimPoint([tr('1'), u()], 0)).toBe(1)
    expect(findValidTrimPoint([a(), tr('1')], 0)).toBe(2)
    expect(findValidTrimPoint([u(), a(), u()], 1)).toBe(2)
    expect(findValidTrimPoint([], 0)).toBe(0)
    expect(findValidTrimPoint([tu('1', 'user'), a()], 0)).toBe(2)
    expect(findValidTrimPoint([tu('1', 'user'), tr('1')], 0)).toBe(0)
  })
})

describe('adjustSplitPointForToolPairs', () => {
  it('moves the split past tool results and unanswered calls', () => {
    expect(adjustSplitPointForToolPairs([u(), a()], 0)).toBe(0)
    expect(adjustSplitPointForToolPairs([tr('1'), u()], 0)).toBe(1)
    expect(adjustSplitPointForToolPairs([tu('1'), a()], 0)).toBe(1)
    expect(adjustSplitPointForToolPairs([tu('1'), tr('1')], 0)).toBe(0)
    expect(adjustSplitPointForToolPairs([tr('1'), tr('2'), u()], 0)).toBe(2)
    expect(adjustSplitPointForToolPairs([u()], 1)).toBe(1)
    expect(adjustSplitPointForToolPairs([u()], 5)).toBe(5)
  })

  it('throws NO_VALID_SPLIT when the walk reaches the end', () => {
    expect(refusal(() => adjustSplitPointForToolPairs([tr('1'), tr('2')], 0)).code).toBe('NO_VALID_SPLIT')
  })
})

describe('matchesMessageType', () => {
  it('separates tool traffic from plain messages', () => {
    expect([tu('1'), tr('1'), u()].map((m) => matchesMessageType(m, 'tools'))).toStrictEqual([
      true,
      true,
      false,
    ])
    expect([tu('1'), tr('1'), u()].map((m) => matchesMessageType(m, 'messages'))).toStrictEqual([
      false,
      false,
      true,
    ])
    expect([tu('1'), u()].map((m) => matchesMessageType(m, 'all'))).toStrictEqual([true, true])
  })
})
