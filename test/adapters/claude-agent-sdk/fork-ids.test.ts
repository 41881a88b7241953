/**
 * The uuid rule of a ledger fork (src/adapters/claude-agent-sdk/fork-ids.ts): a lowercase UUID's fork
 * uuid is its XOR with the fork's mask — a UUID of the same version and variant, different in every fork,
 * the same every time, and undone by `parentUuid`; anything else is hashed, one way.
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  droppedRefUuid,
  forkedUuid,
  isUuidShaped,
  parentUuid,
} from '../../../src/adapters/claude-agent-sdk/fork-ids.js'
import { fcRuns } from '../../helpers/runs.js'

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const lowercaseUuid = fc.uuid().map((u) => u.toLowerCase())

describe('the fork uuid rule', () => {
  it('is undone by parentUuid, keeps version and variant, and is the same every time', () => {
    fc.assert(
      fc.property(lowercaseUuid, fc.uuid(), (uuid, fork) => {
        const forked = forkedUuid(uuid, fork)
        expect(parentUuid(forked, fork)).toBe(uuid)
        expect(forkedUuid(uuid, fork)).toBe(forked)
        expect(forked[14]).toBe(uuid[14])
        expect(
          ((parseInt(forked[19] ?? '0', 16) >> 2) & 3) === ((parseInt(uuid[19] ?? '0', 16) >> 2) & 3),
        ).toBe(true)
        expect(isUuidShaped(forked)).toBe(true)
      }),
      { numRuns: fcRuns(200) },
    )
  })

  it('gives a v4 UUID a v4 UUID, different from it and in every fork', () => {
    const uuid = randomUUID()
    const forks = Array.from({ length: 50 }, () => randomUUID())
    const forked = forks.map((f) => forkedUuid(uuid, f))
    for (const f of forked) expect(f).toMatch(V4)
    expect(new Set([uuid, ...forked]).size).toBe(51)
  })

  it('hashes what is no lowercase UUID, one way', () => {
    const fork = randomUUID()
    for (const id of ['msg-1', 'ABCDEF01-2345-4678-89AB-CDEF01234567', '']) {
      const forked = forkedUuid(id, fork)
      expect(forked).toMatch(V4)
      expect(forked).toBe(forkedUuid(id, fork))
      expect(parentUuid(id, fork)).toBeUndefined()
    }
  })

  it('numbers the references to left-out entries by fork and place', () => {
    const fork = randomUUID()
    expect(droppedRefUuid(fork, 0)).toMatch(V4)
    expect(droppedRefUuid(fork, 0)).toBe(droppedRefUuid(fork, 0))
    expect(droppedRefUuid(fork, 1)).not.toBe(droppedRefUuid(fork, 0))
    expect(droppedRefUuid(randomUUID(), 0)).not.toBe(droppedRefUuid(fork, 0))
  })
})
