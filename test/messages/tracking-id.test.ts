import { describe, expect, it } from 'vitest'
import { isRandomUuid, mintTrackingId } from '../../src/messages/tracking-id.js'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('mintTrackingId', () => {
  it('returns UUID v7s that sort in the order minted, also past 4,096 in one millisecond', () => {
    const before = Date.now()
    const ids = Array.from({ length: 20_000 }, () => mintTrackingId())
    for (const id of ids) expect(id).toMatch(UUID_V7)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as string))).toBe(true)
    // The first 48 bits are the milliseconds (borrowed ahead only when a millisecond runs out of ids).
    const ms = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    expect(ms(ids[0] as string)).toBeGreaterThanOrEqual(before)
    expect(ms(ids.at(-1) as string)).toBeLessThanOrEqual(Date.now() + 20_000 / 4096 + 1)
  })
})

describe('isRandomUuid', () => {
  it('tells a random (v4) UUID from any other id', () => {
    expect(isRandomUuid(crypto.randomUUID())).toBe(true)
    expect(isRandomUuid(mintTrackingId())).toBe(false)
    expect(isRandomUuid(crypto.randomUUID().toUpperCase())).toBe(false)
    expect(isRandomUuid('my-own-id')).toBe(false)
  })
})
