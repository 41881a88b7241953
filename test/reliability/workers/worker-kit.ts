/**
 * What every child-process worker shares: a seeded PRNG (so a failing run can be replayed from its
 * seed), message builders with explicit trackingIds (so the parent can compare the exact JSON it was
 * told about), and the line protocol to the parent: a line is in the pipe before the call after it
 * starts, so a line printed before a SIGKILL reaches the parent.
 */
import { writeSync } from 'node:fs'
import { openContextStore, type ContextStore, type MessageData } from '../../../src/index.js'
import { openLedger, type LedgerStore } from '../../helpers/ledger-open.js'

/** The window limits of the crash test's session (the parent checks the rules against them). */
export const CRASH_LIMITS = { windowSize: 10, protectedMessages: { first: 1, last: 2 } } as const

/** The protected ranges of the summary crash test's managers (the parent checks the rules against them). */
export const SUMMARY_CRASH_RANGES = { first: 1, last: 0 } as const

/** The window limits every writer of the concurrency test applies to every session. */
export const CONCURRENT_LIMITS = { windowSize: 24, protectedMessages: { first: 2, last: 4 } } as const

/** The LangChain agent worker's window limits: small, so the window moves on every turn. */
export const LANGCHAIN_LIMITS = { windowSize: 10, tokenBudget: 1500 } as const

/** A small, fast, seedable PRNG (mulberry32). */
export interface Rng {
  /** A float in [0, 1). */
  next(): number
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number
  /** True with probability p. */
  chance(p: number): boolean
}

/**
 * Creates a PRNG from a 32-bit seed.
 *
 * @param seed - any integer
 * @returns the generator
 */
export function rng(seed: number): Rng {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
  }
}

/**
 * Writes one protocol line to the parent: a tag and space-separated fields (the last may hold spaces).
 * `fs.writeSync` on fd 1, never `process.stdout`: libuv hands a child its stdio pipes in blocking mode,
 * so the line is in the pipe when this returns, while `process.stdout` would switch the pipe to
 * non-blocking and queue lines in memory once it fills — lines a SIGKILL or `process.exit` then loses.
 *
 * @param tag - line kind
 * @param fields - its fields
 */
export function report(tag: string, ...fields: (string | number)[]): void {
  const bytes = Buffer.from(`${[tag, ...fields].join(' ')}\n`)
  for (let off = 0; off < bytes.length;) off += writeSync(1, bytes, off)
}

/** Builds messages with trackingIds `${prefix}.${n}` and tool ids derived from them. */
export class MessageFactory {
  private n = 0

  /** @param prefix - unique per process run, so ids never repeat across restarts */
  constructor(private readonly prefix: string) {}

  private id(): string {
    return `${this.prefix}.${this.n++}`
  }

  /** A user text message, optionally carrying Strands' pin flag. */
  user(text: string, pinned = false): MessageData {
    return {
      role: 'user',
      content: [{ text }],
      trackingId: this.id(),
      ...(pinned ? { metadata: { custom: { pinned: true } } } : {}),
    }
  }

  /** An assistant text reply. */
  reply(text: string): MessageData {
    return { role: 'assistant', content: [{ text }], trackingId: this.id() }
  }

  /** An assistant message with `calls` parallel toolUse blocks; returns it and the tool ids. */
  toolUse(calls: number): { message: MessageData; ids: string[] } {
    const trackingId = this.id()
    const ids = Array.from({ length: calls }, (_, i) => `${trackingId}.c${i}`)
    return {
      ids,
      message: {
        role: 'assistant',
        content: ids.map((toolUseId) => ({
          toolUse: { toolUseId, name: 'lookup', input: { query: toolUseId, limit: calls } },
        })),
        trackingId,
      },
    }
  }

  /** A user message answering `ids`. */
  toolResult(ids: readonly string[], size = 40): MessageData {
    return {
      role: 'user',
      content: ids.map((toolUseId) => ({
        toolResult: {
          toolUseId,
          status: 'success' as const,
          content: [{ text: `result of ${toolUseId} ${'r'.repeat(size)}` }],
        },
      })),
      trackingId: this.id(),
    }
  }
}

/**
 * Reports a failed call to the parent as an `E <code> <message>` line.
 *
 * @param error - what the call threw
 */
export function reportFailure(error: unknown): void {
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'UNKNOWN'
  const message = error instanceof Error ? error.message : String(error)
  report('E', code, message.replace(/\n/g, ' '))
}

/**
 * Opens the ledger a worker was given, or reports why not and exits with code 1.
 *
 * @param path - the ledger file
 * @returns the open store
 */
export function openOrExit(path: string): ContextStore {
  try {
    return openContextStore(path)
  } catch (error) {
    reportFailure(error)
    process.exit(1)
  }
}

/**
 * Opens the ledger a worker was given — a SQLite file or a PostgreSQL connection string — or reports why
 * not and exits with code 1.
 *
 * @param location - the ledger's file path or connection string
 * @returns the open store (the conformance suite's async API)
 */
export async function openLedgerOrExit(location: string): Promise<LedgerStore> {
  try {
    return await openLedger(location)
  } catch (error) {
    reportFailure(error)
    process.exit(1)
  }
}
