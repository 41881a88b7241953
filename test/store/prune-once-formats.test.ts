/**
 * Retention prunes a message once, in every format (a conformance-suite file): a second `prune()` over
 * the same messages finds them already pruned — the marker where the format keeps the library's notes and
 * the erasure in the edit log — and writes nothing, so the edit log does not grow with every run. The
 * LangChain and OpenAI Agents markers were missing from the already-pruned test (both backends): their
 * pruned rows were erased again, one more `redact` edit each, at every run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MessageData } from '../../src/index.js'
import type { MessageFormatName } from '../../src/formats/index.js'
import { BACKEND, makeBackend, type LedgerStore } from '../helpers/backend.js'
import { EntryMaker } from '../helpers/claude-format-entries.js'

const backend = makeBackend()
let store: LedgerStore
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

/** A question and its answer in each format. */
const TURN: Record<MessageFormatName, (i: number) => unknown[]> = {
  strands: (i) => [
    { role: 'user', content: [{ text: `q${i}` }] },
    { role: 'assistant', content: [{ text: `a${i}` }] },
  ],
  'ai-sdk/model': (i) => [
    { role: 'user', content: `q${i}` },
    { role: 'assistant', content: `a${i}` },
  ],
  'ai-sdk/ui': (i) => [
    { id: `u${i}`, role: 'user', parts: [{ type: 'text', text: `q${i}` }] },
    { id: `a${i}`, role: 'assistant', parts: [{ type: 'text', text: `a${i}` }] },
  ],
  'openai-agents': (i) => [
    { role: 'user', content: `q${i}` },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: `a${i}` }],
    },
  ],
  langchain: (i) => [
    { type: 'human', data: { content: `q${i}` } },
    { type: 'ai', data: { content: `a${i}` } },
  ],
  'claude-agent': (i) => {
    const m = new EntryMaker(`t${i}`)
    return [m.prompt(`q${i}`), m.text(`a${i}`)]
  },
}

describe(`retention [${BACKEND}]`, () => {
  it.each(Object.keys(TURN) as MessageFormatName[])('prunes a %s message once', async (format) => {
    const sessionId = `once-${format}`
    const messages = [0, 1, 2].flatMap((i) => TURN[format](i)) as MessageData[]
    await store.append(sessionId, messages, { format })
    await backend.manager(store, { sessionId, windowSize: 2 }).applyWindow()
    const options = { sessionId, before: Date.now() + 60_000, keepPinned: true } as const
    expect((await store.prune(options)).pruned).toBe(4)
    const edits = (await store.edits(sessionId)).length
    expect((await store.prune(options)).pruned).toBe(0)
    expect((await store.edits(sessionId)).length).toBe(edits)
  })
})
