/**
 * The framework-neutral `pin_message` tool against a core manager on a real SQLite file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { PersistentConversationManager, type ContextStore } from '../../src/index.js'
import {
  checkPinMessageInput,
  describePinOutcome,
  handlePinMessage,
  pinMessageInputSchema,
  pinMessageToolDefinition,
} from '../../src/tools/pin-message-tool.js'
import { tempStore } from '../helpers/temp-store.js'

let store: ContextStore
let cleanup: () => void
let manager: PersistentConversationManager

beforeEach(() => {
  ;({ store, cleanup } = tempStore())
  manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 4 })
  for (let i = 0; i < 6; i++)
    manager.append({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ text: `m${i}` }] })
})
afterEach(() => {
  cleanup()
})

describe('pinMessageToolDefinition', () => {
  it('carries the name, a description and the zod input schema with its defaults', () => {
    expect(pinMessageToolDefinition.name).toBe('pin_message')
    expect(pinMessageToolDefinition.description).toMatch(/index/)
    expect(pinMessageToolDefinition.handler).toBe(handlePinMessage)
    expect(pinMessageInputSchema.parse({ index: 2 })).toStrictEqual({ index: 2, action: 'pin' })
    expect(z.toJSONSchema(pinMessageInputSchema, { io: 'input' }).required).toStrictEqual(['index'])
  })
})

describe('handlePinMessage', () => {
  it('pins the message at a window index with actor agent and the reason', () => {
    manager.applyWindow()
    const window = manager.window()
    const result = handlePinMessage(manager, { index: 1, reason: 'key decision' })
    expect(result).toStrictEqual({
      status: 'success',
      text: 'Pinned message 1: it stays in your context window until unpinned.',
      pin: { seq: 3, trackingId: window[1]?.trackingId, changed: true, restored: 0 },
    })
    expect(store.pinnedMessages({ sessionId: 's' }).map((p) => [p.seq, p.actor, p.reason])).toStrictEqual([
      [3, 'agent', 'key decision'],
    ])
  })

  it('reports an already pinned message as success without a new pin event', () => {
    handlePinMessage(manager, { index: 0 })
    expect(handlePinMessage(manager, { index: 0, action: 'pin' })).toMatchObject({
      status: 'success',
      text: 'Message 0 was already pinned; it stays in your context window.',
    })
    expect(store.pinEvents('s')).toHaveLength(1)
  })

  it('unpins, and answers unpinning a message that is not pinned with an error result', () => {
    handlePinMessage(manager, { index: 2 })
    expect(handlePinMessage(manager, { index: 2, action: 'unpin', reason: 'done' })).toMatchObject({
      status: 'success',
      text: 'Unpinned message 2: it may leave your context window when space is needed.',
    })
    expect(handlePinMessage(manager, { index: 2, action: 'unpin' })).toMatchObject({
      status: 'error',
      text: 'Message 2 is not pinned, so there is nothing to unpin.',
    })
    expect(store.pinEvents('s').map((e) => [e.action, e.actor, e.reason])).toStrictEqual([
      ['pin', 'agent', undefined],
      ['unpin', 'agent', 'done'],
    ])
  })

  it('answers a reason over 256 characters with an error result the model can act on, and stores nothing', () => {
    const result = handlePinMessage(manager, { index: 1, reason: 'r'.repeat(5_000_000) })
    expect(result.status).toBe('error')
    expect(result.text).toMatch(
      /^Invalid pin_message input at reason: .*256.*reason\?: string of 1-256 characters/,
    )
    expect(handlePinMessage(manager, { index: 1, reason: '' }).status).toBe('error')
    expect(store.pinEvents('s')).toStrictEqual([])
    expect(handlePinMessage(manager, { index: 1, reason: 'r'.repeat(256) }).status).toBe('success')
  })

  it('answers a reason the store refuses though the schema takes it (emoji over 256 code units, a lone surrogate) with an error result', () => {
    for (const reason of ['😀'.repeat(129), '😀'.repeat(200), 'ok\ud800', '\ud800']) {
      const result = handlePinMessage(manager, { index: 1, reason })
      expect(result.status, reason.slice(0, 8)).toBe('error')
      expect(result.text).toMatch(/^Message 1 was not pinned: .*reason/)
    }
    expect(store.pinEvents('s')).toStrictEqual([])
    expect(handlePinMessage(manager, { index: 1, action: 'unpin', reason: '\ud800' }).text).toMatch(
      /^Message 1 was not unpinned: /,
    )
    // An input whose getter or Proxy trap throws (no JSON does): an error result, not a throw.
    const throwing = [
      Object.defineProperty({ index: 1 }, 'reason', {
        enumerable: true,
        get: () => {
          throw new Error('boom')
        },
      }),
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap')
          },
        },
      ),
    ]
    for (const input of throwing)
      expect(handlePinMessage(manager, input).text).toMatch(
        /^Invalid pin_message input: it could not be read/,
      )
  })

  it('states the reason bound in its JSON Schema', () => {
    const schema = z.toJSONSchema(pinMessageInputSchema, { io: 'input' }) as unknown as {
      properties: { reason: { minLength?: number; maxLength?: number } }
    }
    expect(schema.properties.reason).toMatchObject({ minLength: 1, maxLength: 256 })
  })

  it('answers a pin no window can show (a greeting before the first user message) with an error result', () => {
    const greeted = new PersistentConversationManager({ store, sessionId: 'g', windowSize: 4 })
    greeted.append([
      { role: 'assistant', content: [{ text: 'Hello!' }] },
      { role: 'user', content: [{ text: 'hi' }] },
    ])
    const result = handlePinMessage(
      greeted,
      { index: 0 },
      { target: { count: 2, resolve: (seq) => ({ seq }) } },
    )
    expect(result.status).toBe('error')
    expect(result.text).toMatch(/^Message 0 cannot be pinned: .*first plain user message/)
    expect(store.pinEvents('g')).toStrictEqual([])
  })

  it('answers an out-of-range index with an error result, without throwing', () => {
    expect(handlePinMessage(manager, { index: 6 })).toStrictEqual({
      status: 'error',
      text: 'Invalid index 6: you see 6 messages, so index must be between 0 and 5.',
    })
    expect(store.pinEvents('s')).toStrictEqual([])
  })

  it.each<[unknown]>([
    [{ index: -1 }],
    [{ index: 1.5 }],
    [{ index: 0, action: 'delete' }],
    [null],
    ['pin 3'],
    [{}],
  ])('answers malformed input %j with an error result naming the schema, without throwing', (input) => {
    const result = handlePinMessage(manager, input)
    expect(result.status).toBe('error')
    expect(result.text).toMatch(/^Invalid pin_message input at .*Expected \{ index: integer >= 0/)
    expect(store.pinEvents('s')).toStrictEqual([])
  })

  it('uses a caller-given target and actor', () => {
    const result = handlePinMessage(
      manager,
      { index: 0, reason: 'shown first' },
      { target: { count: 1, resolve: () => ({ seq: 5 }) }, actor: 'planner' },
    )
    expect(result.pin?.seq).toBe(5)
    expect(store.pinnedMessages({ sessionId: 's' }).map((p) => [p.seq, p.actor, p.reason])).toStrictEqual([
      [5, 'planner', 'shown first'],
    ])
  })

  it('answers with an error when the session has no messages yet', () => {
    const empty = new PersistentConversationManager({ store, sessionId: 'empty' })
    expect(handlePinMessage(empty, { index: 0 })).toStrictEqual({
      status: 'error',
      text: 'Invalid index 0: there are no messages yet.',
    })
  })
})

describe('checkPinMessageInput', () => {
  it('returns the parsed input with its default action', () => {
    expect(checkPinMessageInput({ index: 0, reason: 'r' }, 1)).toStrictEqual({
      ok: true,
      input: { index: 0, action: 'pin', reason: 'r' },
    })
  })
})

describe('describePinOutcome', () => {
  it('words every outcome', () => {
    expect([
      describePinOutcome(1, 'pin', true),
      describePinOutcome(1, 'pin', false),
      describePinOutcome(1, 'unpin', true),
      describePinOutcome(1, 'unpin', false),
    ]).toStrictEqual([
      { status: 'success', text: 'Pinned message 1: it stays in your context window until unpinned.' },
      { status: 'success', text: 'Message 1 was already pinned; it stays in your context window.' },
      {
        status: 'success',
        text: 'Unpinned message 1: it may leave your context window when space is needed.',
      },
      { status: 'error', text: 'Message 1 is not pinned, so there is nothing to unpin.' },
    ])
  })
})
