/**
 * `npm run demo -- --langchain` runs as documented, through the `npm run demo` entry
 * (examples/strands-demo.ts with `--langchain`), in a process of its own: the story it prints holds —
 * every model input within the model's limit while the whole archive would not be, the graph state kept
 * to the window while the archive grows, the same window in a second process by thread id alone, recall
 * of the first turn's fact with `search_history` — and the files it leaves say the same, for the library,
 * for LangGraph's checkpointer and for the CLI.
 */
import { describe, expect, it } from 'vitest'
import {
  CONTEXT_LIMIT,
  FACT,
  onThread,
  open,
  THREAD_ID,
  WINDOW_SIZE,
} from '../../examples/langchain-demo-agent.js'
import { SupportModel } from '../../examples/langchain-demo-model.js'
import { LEDGER_ID_PREFIX } from '../../src/adapters/langchain/index.js'
import { runDemoOnce, tsx } from '../helpers/demo-run.js'

const TURNS = 20
// One run for every test of the file (it takes seconds): what it printed, the file it left.
const demo = runDemoOnce('langchain', 'support.db')
const turnLines = () => demo.out.split('\n').filter((l) => /^ {2}turn +\d+ /u.test(l))

describe('npm run demo -- --langchain', () => {
  it('runs 20 createAgent turns with tool calls; every input within the limit, the archive over it', () => {
    expect(turnLines()).toHaveLength(TURNS)
    const largest = demo.numbers(/^ {2}turn +\d+ .* largest input +([\d,]+) tok/gmu)
    expect(largest).toHaveLength(TURNS)
    for (const n of largest) expect(n).toBeLessThanOrEqual(CONTEXT_LIMIT)
    // Every fourth turn asks about two orders: the model calls lookup_order twice in one message.
    expect(turnLines().filter((l) => l.includes('Where are orders'))).toHaveLength(5)
    expect(demo.out).toMatch(/refused: 0/u)
    expect(demo.numbers(/the archive would be a ([\d,]+)-token input/gu)[0]).toBeGreaterThan(CONTEXT_LIMIT)
  })

  it('keeps the window and the graph state bounded while the archive grows', () => {
    const windows = demo.numbers(/ window +(\d+) msgs/gu)
    const states = demo.numbers(/ graph state +(\d+) msgs/gu)
    const archives = demo.numbers(/ archive +(\d+) msgs/gu)
    expect(Math.max(...windows)).toBeLessThanOrEqual(WINDOW_SIZE)
    // The state is the window the last model call was given, and its answer.
    expect(Math.max(...states)).toBeLessThanOrEqual(WINDOW_SIZE + 1)
    expect(archives).toStrictEqual([...archives].sort((a, b) => a - b))
    expect(archives.at(-1)).toBeGreaterThan(5 * WINDOW_SIZE)
  })

  it('resumes the same window in a second process by thread id, and recalls what left it', () => {
    expect(demo.out).toMatch(/process 2 \(pid \d+\): .* fingerprint ([0-9a-f]{16}): the same window: yes/u)
    const before = /window fingerprint ([0-9a-f]{16})\)/u.exec(demo.out)?.[1]
    expect(demo.out).toContain(`fingerprint ${before ?? '?'}: the same window: yes`)
    expect(demo.out).toContain('the refund code of the first turn is in the window: no')
    expect(demo.out).toMatch(/model call 1: .* the code among them: no → it calls search_history/u)
    expect(demo.out).toMatch(/model call 2: .* the search result among them: yes/u)
    expect(demo.out).toContain(
      'answer: "Your refund code is RF-7731." (search_history found it in the archive: yes)',
    )
    expect(demo.out).toContain('the first message: in the archive, not in the window: yes')
    expect(demo.out).toContain('Look inside the file with the CLI')
  })

  it('leaves files that say the same, for the library, the checkpointer and the CLI', async () => {
    const o = open(demo.file, new SupportModel())
    try {
      const thread = o.ledger.session(THREAD_ID)
      const archive = await thread.history()
      const window = await thread.window()
      // Every message once: the prompts, each model message, each tool result (5 turns made 2 calls).
      const count = (type: string) => archive.filter((m) => m.type === type).length
      expect(count('human')).toBe(TURNS + 1)
      expect(count('tool')).toBe(TURNS - 1 + 5 + 1)
      expect(count('ai')).toBe(1 + 2 * (TURNS - 1) + 2)
      expect(new Set(archive.map((m) => m.id)).size).toBe(archive.length)
      expect(archive[0]?.text).toBe(FACT)
      const end = demo.out.slice(demo.out.indexOf('At the end:'))
      expect(end).toContain(`${window.length} messages,`)
      expect(end).toContain(`${archive.length} messages,`)
      // The checkpointed state holds the window's messages under their stored ids, not the history.
      const state = (await o.agent.graph.getState(onThread)).values as { messages: { id?: string }[] }
      expect(state.messages.length).toBeLessThanOrEqual(WINDOW_SIZE + 1)
      const stored = new Set(archive.map((m) => m.id))
      for (const m of state.messages)
        expect(stored.has(m.id) || (m.id ?? '').startsWith(LEDGER_ID_PREFIX)).toBe(true)
      expect(state.messages.at(-1)?.id).toBe(archive.at(-1)?.id)
    } finally {
      o.close()
    }
    const cli = tsx('src/cli/main.ts', 'search', demo.file, 'refund code', '--session', THREAD_ID)
    expect(cli.status).toBe(0)
    expect(cli.stdout).toContain('RF-7731')
    const check = tsx('src/cli/main.ts', 'check', demo.file)
    expect(check.status).toBe(0)
  })
})
