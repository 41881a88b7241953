/**
 * `npm run demo -- --ai-sdk` runs as documented, through the `npm run demo` entry (examples/strands-demo.ts
 * with `--ai-sdk`), in a process of its own: the story it prints holds — no prompt the model got was over
 * the budget, the window after the restart is the one before, recall found the fact that left the window,
 * summaries were written — and the file it leaves says the same, for the library and for the CLI.
 */
import { describe, expect, it } from 'vitest'
import { ledgerSession } from '../../src/adapters/ai-sdk/index.js'
import { openContextStore } from '../../src/index.js'
import { SESSION_ID, TOKEN_BUDGET } from '../../examples/ai-sdk-demo-agent.js'
import { jsonTokens } from '../../examples/ai-sdk-demo-model.js'
import { runDemoOnce, tsx } from '../helpers/demo-run.js'

// One run for every test of the file (it takes seconds): what it printed, the file it left.
const demo = runDemoOnce('ai-sdk', 'ops.db')

describe('npm run demo -- --ai-sdk', () => {
  it('runs 30+ generateText turns, and no prompt the model got was over the token budget', () => {
    const perTurn = demo.numbers(/^ {2}turn +\d+ .* largest prompt +([\d,]+)/gmu)
    expect(perTurn.length).toBeGreaterThanOrEqual(30)
    for (const n of perTurn) expect(n).toBeLessThanOrEqual(TOKEN_BUDGET)
    // The budget is reached, so the bound is what held the prompts, not a short conversation.
    expect(Math.max(...perTurn)).toBeGreaterThan(TOKEN_BUDGET * 0.9)
    expect(demo.numbers(/the largest prompt it got was ([\d,]+) tokens/gu).length).toBe(2)
    expect(demo.out).not.toMatch(/refused [1-9]/u)
    // Multi-step tool loops: one call per host, then the answer.
    expect(demo.out).toMatch(/4 steps check_host/u)
    expect(demo.numbers(/sent whole, it would be a ([\d,]+)-token prompt/gu)[0]).toBeGreaterThan(
      3 * TOKEN_BUDGET,
    )
  })

  it('shows the same window after the restart, in a second process and in a new session', () => {
    const before = /window fingerprint ([0-9a-f]{16})\)/u.exec(demo.out)?.[1]
    expect(before).toBeDefined()
    expect(demo.out).toContain(`fingerprint ${before}\n  the same window as before the restart: yes`)
    expect(demo.out).toContain(
      'process 1 opens it again too (new store, new ledgerSession): the same window: yes',
    )
  })

  it('recalls the fact that left the window with search_history and read_history, and pins it', () => {
    expect(demo.out).toMatch(/it left the window at \S+, folded into summary #\d+/u)
    expect(demo.out).toContain('the summary the model sees mentions the ticket: no')
    expect(demo.out).toMatch(
      /step 1: the model calls search_history .*\n.*\n {2}step 2: the model calls read_history/u,
    )
    expect(demo.out).toMatch(/step 3: the model calls pin_message/u)
    expect(demo.out).toContain('answer: "It is CHG-20931, approved by Dana Whitfield')
    expect(demo.out).toContain('recall found the evicted fact: yes')
    expect(demo.out).toMatch(
      /the pinned read_history result \(seq \d+\), 4 turns later, is in the window: yes/u,
    )
  })

  it('writes summaries and says which messages they stand for', () => {
    expect(demo.numbers(/^Summaries: (\d+) written/gmu)[0]).toBeGreaterThan(0)
    expect(demo.out).toMatch(/it stands for [\d,]+ messages, seqs \d+–\d+/u)
    expect(demo.out).toContain('Look inside the file with the CLI')
  })

  it('leaves a file that says the same: the window within budget, the summaries, the pins, the eviction', async () => {
    const store = openContextStore(demo.file)
    try {
      const session = ledgerSession({
        store,
        sessionId: SESSION_ID,
        tokenBudget: TOKEN_BUDGET,
        tokenCounter: jsonTokens,
      })
      const window = await session.window()
      expect(window.reduce((n, m) => n + jsonTokens(m), 0)).toBeLessThanOrEqual(TOKEN_BUDGET)
      const end = demo.out.slice(demo.out.indexOf('At the end:'))
      expect(end).toContain(`window     ${window.length} messages`)
      expect(session.ledger.summaries().filter((s) => s.current)).toHaveLength(1)
      const reasons = store.pinnedMessages({ sessionId: SESSION_ID }).map((p) => [p.reason, p.inWindow])
      expect(reasons).toEqual([
        ['the task', true],
        ['change ticket, recalled from seq 4', true],
      ])
      expect(JSON.stringify(session.ledger.history({ fromSeq: 4, limit: 1 })[0]?.message)).toContain(
        'CHG-20931',
      )
      expect(store.evictionOf(SESSION_ID, 4)?.cut).toBe('fold')
    } finally {
      store.close()
    }
    const cli = tsx('src/cli/main.ts', 'window', demo.file, SESSION_ID, '--explain')
    expect(cli.status).toBe(0)
    expect(cli.stdout).toContain('pinned by agent: the task')
    expect(cli.stdout).toMatch(/summary #\d+ of \d+ messages/u)
  })
})
