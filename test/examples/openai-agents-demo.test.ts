/**
 * `npm run demo -- --openai-agents` runs as documented, through the `npm run demo` entry
 * (examples/strands-demo.ts with `--openai-agents`), in a process of its own: the story it prints holds —
 * every model input within the model's limit while the whole archive would not be, the same window after
 * reopening the store, recall of the first turn's fact, `popItem` taking the answer back into an abandoned
 * branch, a compaction item the next run starts from — and the file it leaves says the same, for the library and for the CLI.
 */
import { describe, expect, it } from 'vitest'
import { LedgerSession } from '../../src/adapters/openai-agents/index.js'
import { openContextStore } from '../../src/index.js'
import { CONTEXT_LIMIT, SESSION_ID, WINDOW_SIZE } from '../../examples/openai-agents-demo-agent.js'
import { runDemoOnce, tsx } from '../helpers/demo-run.js'

// One run for every test of the file (it takes seconds): what it printed, the file it left.
const demo = runDemoOnce('openai-agents', 'support.db')

describe('npm run demo -- --openai-agents', () => {
  it('runs 20 run() turns with a tool call each; every input within the limit, the archive over it', () => {
    const largest = demo.numbers(/^ {2}turn +\d+ .* largest input +([\d,]+) tok/gmu)
    expect(largest.length).toBe(23)
    for (const n of largest) expect(n).toBeLessThanOrEqual(CONTEXT_LIMIT)
    const windows = demo.numbers(/ window +(\d+) items/gu)
    expect(Math.max(...windows)).toBe(WINDOW_SIZE)
    expect(demo.out).toMatch(/refused: 0/u)
    expect(demo.numbers(/the archive would be a ([\d,]+)-token input/gu)[0]).toBeGreaterThan(CONTEXT_LIMIT)
  })

  it('gives the same window after the store is reopened, and recalls what left it', () => {
    expect(demo.out).toMatch(/a new LedgerSession: the same window \([0-9a-f]{16}\): yes/u)
    expect(demo.out).toContain('the first turn is in the window: no')
    expect(demo.out).toContain(
      'answer: "Your refund code is RF-7731." (search_history found it in the archive: yes)',
    )
  })

  it('withdraws with popItem and compacts, keeping everything in the archive', () => {
    expect(demo.out).toMatch(
      /popItem\(\): took back .*Order A-1002 is .*the window no longer shows it: yes; it is kept in the abandoned branch "support-dana~1" \(1 row\)/u,
    )
    expect(demo.out).toMatch(
      /folded the \d+ rows the window held into summary #1 \(model "openai-compaction"\)/u,
    )
    expect(demo.out).toContain("the run's first model call got 2 items")
    expect(demo.out).toContain('Look inside the file with the CLI')
  })

  it('leaves a file that says the same, for the library and for the CLI', async () => {
    const store = openContextStore(demo.file)
    try {
      const session = new LedgerSession({ store, sessionId: SESSION_ID, windowSize: WINDOW_SIZE })
      const shown = (await session.getItems()) as { type?: string }[]
      expect(shown.map((i) => i.type)).toContain('compaction')
      const archive = (await session.history({ limit: 1000 })).map((e) => JSON.stringify(e.message))
      expect(archive.some((m) => m.includes('RF-7731'))).toBe(true)
      // The popped answer left the session: it is the abandoned branch's one row.
      const popped = store
        .history(`${SESSION_ID}~1`)
        .filter((e) => e.seq > (store.branches(SESSION_ID)[1]?.forkSeq ?? 0))
      expect(popped.map((e) => JSON.stringify(e.message).includes('Order A-1002 is'))).toStrictEqual([true])
      const end = demo.out.slice(demo.out.indexOf('At the end:'))
      expect(end).toContain(`${shown.length} items:`)
      expect(end).toContain(`${archive.length} rows:`)
      expect(store.summaries(SESSION_ID)[0]?.model).toBe('openai-compaction')
    } finally {
      store.close()
    }
    const cli = tsx('src/cli/main.ts', 'search', demo.file, 'refund code', '--session', SESSION_ID)
    expect(cli.status).toBe(0)
    expect(cli.stdout).toContain('RF-')
  })
})
