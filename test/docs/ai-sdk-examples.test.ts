/**
 * docs/ai-sdk.md's two quick starts run as written: each ```ts block that imports `context-ledger/ai-sdk` is saved as
 * a module whose imports of `context-ledger` and `context-ledger/ai-sdk` point at the sources, whose
 * `agent.db` / `chat.db` is a file in a temp directory, and which gets a scripted `model`
 * (`MockLanguageModelV4`; the doc leaves the provider to the reader). The chat route's `POST` is then
 * called as `useChat` would — two messages, then an edit of the second — and the saved session read back.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { UIMessage } from 'ai'
import { openContextStore } from '../../src/index.js'
import { tempDir } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'

// The quick starts: the blocks importing `context-ledger/ai-sdk` (the PostgreSQL fragment imports only
// `context-ledger/postgres`; the conformance suite runs the adapter there).
const blocks = codeBlocks(readRepoFile('docs/ai-sdk.md'), 'ts').filter((b) =>
  /^import .* from 'context-ledger\/ai-sdk'$/m.test(b),
)
const dir = tempDir()
const moduleDir = join(ROOT, '.tmp', `ai-sdk-examples-${process.pid}`)
mkdirSync(moduleDir, { recursive: true })

afterAll(() => {
  rmSync(moduleDir, { recursive: true, force: true })
  dir.cleanup()
})

/** A model that calls `lookup` once for each host it is asked about, then answers. */
const SCRIPTED_MODEL = `import { scriptedDocModel } from '${ROOT}test/docs/ai-sdk-doc-model.js'
const model = scriptedDocModel()
`

function runnable(block: string, db: string): string {
  const code = block
    .replaceAll(`'context-ledger/ai-sdk'`, `'${ROOT}src/adapters/ai-sdk/index.js'`)
    .replaceAll(`'context-ledger'`, `'${ROOT}src/index.js'`)
    .replaceAll(/'(agent|chat)\.db'/gu, JSON.stringify(db))
  const lines = code.split('\n')
  const lastImport = lines.findLastIndex((l) => l.startsWith('import '))
  return [...lines.slice(0, lastImport + 1), SCRIPTED_MODEL, ...lines.slice(lastImport + 1)].join('\n')
}

async function load(i: number): Promise<{ db: string; module: Record<string, unknown> }> {
  const db = dir.file(`doc-${i}.db`)
  const file = join(moduleDir, `start-${i}.ts`)
  writeFileSync(file, runnable(blocks[i] ?? '', db))
  return { db, module: (await import(file)) as Record<string, unknown> }
}

describe('docs/ai-sdk.md quick starts', () => {
  it('has an agent-loop start and a chat-route start', () => {
    expect(blocks).toHaveLength(2)
    expect(blocks[0]).toContain('prepareStep: session.prepareStep')
    expect(blocks[1]).toContain('toUIMessageStreamResponse')
  })

  it('the agent loop runs, archiving the user message, every step and the answer', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined)
    const { db } = await load(0)
    vi.restoreAllMocks()
    const store = openContextStore(db, { mustExist: true })
    try {
      const roles = store.history('ops-7').map((e) => (e.message as unknown as { role: string }).role)
      expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    } finally {
      store.close()
    }
  })

  it('the chat route serves two useChat requests and saves each message once', async () => {
    const { db, module } = await load(1)
    const POST = module.POST as (req: Request) => Promise<Response>
    const post = async (messages: UIMessage[]) => {
      const res = await POST(
        new Request('http://x/api/chat', { method: 'POST', body: JSON.stringify({ id: 'c1', messages }) }),
      )
      return res.text()
    }
    const first: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Check db1' }] }
    expect(await post([first])).toContain('text-delta')
    const store = openContextStore(db, { mustExist: true })
    try {
      const saved = store.history('c1')
      expect(saved.length).toBe(2)
      const second: UIMessage = { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks' }] }
      await post([...saved.map((e) => e.message as unknown as UIMessage), second])
      expect(
        store
          .history('c1')
          .map((e) => e.trackingId)
          .slice(0, 3),
      ).toEqual(['u1', saved[1]?.trackingId, 'u2'])
      expect(store.history('c1').length).toBe(4)
      // useChat's edit of u2 (sendMessage({ text, messageId })): the route passes trigger and messageId on.
      const edited: UIMessage = { ...second, parts: [{ type: 'text', text: 'Thanks, and db2?' }] }
      const list = [...saved.map((e) => e.message as unknown as UIMessage), edited]
      const res = await POST(
        new Request('http://x/api/chat', {
          method: 'POST',
          body: JSON.stringify({ id: 'c1', messages: list, trigger: 'submit-message', messageId: 'u2' }),
        }),
      )
      await res.text()
      expect(JSON.stringify(store.history('c1')[2]?.message)).toContain('and db2?')
      expect(store.history('c1')).toHaveLength(4)
      expect(store.branches('c1').map((b) => [b.sessionId, b.kind, b.ownMessages])).toEqual([
        ['c1', 'root', 4],
        ['c1~1', 'abandoned', 2],
      ])
    } finally {
      store.close()
    }
  })
})
