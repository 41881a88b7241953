/**
 * What the demo's two processes share: the session's configuration, the window fingerprint that proves
 * the restart changed nothing, and the one-line message summaries of the report.
 */
import { createHash } from 'node:crypto'
import type { MessageData, PersistentConversationManagerOptions } from '../src/index.js'

/** The demo's session id. */
export const SESSION_ID = 'orders-migration'

/**
 * The window configuration both processes use. It lives in code, not in the file: a manager is
 * configuration only, and the ledger holds the state.
 */
export const WINDOW_OPTIONS = {
  windowSize: 40,
  tokenBudget: 4_000,
  protectedMessages: { first: 1, last: 2 },
} as const satisfies Omit<PersistentConversationManagerOptions, 'store' | 'sessionId'>

/** Two hashes of a window: its trackingIds in order, and its exact JSON. */
export interface WindowFingerprint {
  /** sha256 of the trackingIds joined with commas. */
  readonly ids: string
  /** sha256 of `JSON.stringify(window)`. */
  readonly json: string
}

/**
 * Fingerprints a window so another process can check it sees the same one.
 *
 * @param window - the messages, as `manager.window()` returned them
 * @returns hashes of the id sequence and of the exact JSON
 */
export function fingerprint(window: readonly MessageData[]): WindowFingerprint {
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex')
  return { ids: sha(window.map((m) => m.trackingId ?? '?').join(',')), json: sha(JSON.stringify(window)) }
}

function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`
}

/**
 * One line describing a message: its blocks (text, tool calls, tool results) shortened to `width`.
 *
 * @param message - any message
 * @param width - maximum characters
 * @returns the summary
 */
export function summarizeMessage(message: MessageData, width = 72): string {
  const parts = message.content.map((block) => {
    if ('text' in block) return `"${block.text}"`
    if ('toolUse' in block) return `toolUse ${block.toolUse.name}(${JSON.stringify(block.toolUse.input)})`
    if ('toolResult' in block) {
      const first = block.toolResult.content[0]
      const body = first !== undefined && 'text' in first ? first.text : JSON.stringify(first ?? '')
      return `toolResult ${block.toolResult.status} "${body}"`
    }
    return Object.keys(block)[0] ?? '?'
  })
  return clip(parts.join(' + '), width)
}

/**
 * Formats an integer with thousands separators.
 *
 * @param n - the number
 * @returns e.g. `12,345`
 */
export function int(n: number): string {
  return n.toLocaleString('en-US')
}

/**
 * A small seeded PRNG (mulberry32): the scripted conversation is the same on every run.
 *
 * @param seed - any integer
 * @returns a function giving numbers in [0, 1)
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
