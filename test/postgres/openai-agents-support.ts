/**
 * Shared pieces of the adversarial `LedgerSession`-on-PostgreSQL tests: item builders, an archive reader,
 * and a check that an error is the library's typed one.
 */
import type { AgentInputItem } from '@openai/agents'
import { ContextLedgerError } from '../../src/index.js'
import type { PostgresContextStore } from '../../src/backends/postgres/index.js'

/** A user message. */
export const user = (t: string): AgentInputItem => ({ type: 'message', role: 'user', content: t })
/** An assistant message. */
export const said = (t: string): AgentInputItem => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: t }],
})
/** A function call. */
export const call = (id: string): AgentInputItem => ({
  type: 'function_call',
  callId: id,
  name: 'f',
  arguments: '{}',
  status: 'completed',
})
/** Its result. */
export const result = (id: string): AgentInputItem => ({
  type: 'function_call_result',
  callId: id,
  name: 'f',
  status: 'completed',
  output: `out ${id}`,
})
/** A compaction item. */
export const compaction = (t: string): AgentInputItem => ({ type: 'compaction', encrypted_content: t })

/** A full turn: prompt, call, result, answer — ids unique by `tag`. */
export const turn = (tag: string): AgentInputItem[] => [
  user(`u ${tag}`),
  call(`c_${tag}`),
  result(`c_${tag}`),
  said(`a ${tag}`),
]

/** Every stored message of a session, as JSON text, oldest first. */
export async function archive(store: PostgresContextStore, sessionId: string): Promise<string[]> {
  const out: string[] = []
  for (let from = 0; ;) {
    const page = await store.history(sessionId, { fromSeq: from, limit: 500 })
    if (page.length === 0) return out
    for (const e of page) {
      out.push(JSON.stringify(e.message))
      from = e.seq + 1
    }
  }
}

/** How many times each item's JSON occurs in the archive. */
export async function occurrences(
  store: PostgresContextStore,
  sessionId: string,
  items: readonly AgentInputItem[],
): Promise<Map<string, number>> {
  const all = await archive(store, sessionId)
  const counts = new Map<string, number>()
  for (const item of items) {
    const key = JSON.stringify(JSON.parse(JSON.stringify(item)))
    counts.set(key, all.filter((m) => m === key).length)
  }
  return counts
}

/** How many markers of the operation the archive holds. */
export async function markersOf(store: PostgresContextStore, sessionId: string, id: string): Promise<number> {
  return (await archive(store, sessionId)).filter((m) =>
    m.includes(`"operation":{"id":${JSON.stringify(id)}`),
  ).length
}

/** The error a rejected call gave: a ContextLedgerError's code, or a description of a raw error. */
export function typed(error: unknown): string {
  return error instanceof ContextLedgerError ? error.code : `RAW ${String(error)}`
}

/** Runs `fn` until it resolves, collecting the codes of its failures. */
export async function untilDone<T>(fn: () => Promise<T>, codes: string[], tries = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn()
    } catch (error) {
      codes.push(typed(error))
      if (i >= tries) throw error
      await sleep(10)
    }
  }
}

/** Sleeps. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
