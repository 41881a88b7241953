/**
 * `npm run demo -- --ai-sdk` runs as documented, through the `npm run demo` entry (examples/strands-demo.ts
 * with `--ai-sdk`), in a process of its own: the story it prints holds — no prompt the model got was over
 * the budget, the window after the restart is the one before, recall found the fact that left the window,
 * summaries were written — and the file it leaves says the same, for the library and for the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerSession } from '../../src/adapters/ai-sdk/index.js'
import { openContextStore } from '../../src/index.js'
import { SESSION_ID, TOKEN_BUDGET } from '../../examples/ai-sdk-demo-agent.js'
import { jsonTokens } from '../../examples/ai-sdk-demo-model.js'
import { numbersIn, tsx } from '../helpers/demo-run.js'
import { tempDir } from '../helpers/temp-store.js'

// One run for every test of the file (it takes a few seconds): a directory for the whole file.
const dir = tempDir('context-ledger-ai-sdk-demo-')
afterAll(() => {
  dir.cleanup()
})

let out = ''
let file = ''
beforeAll(() => {
  file = dir.file('ops.db')
  const run = tsx('examples/strands-demo.ts', '--ai-sdk', '--db', file)
  expect(run.stderr).not.toMatch(/Error/)
  expect(run.status).toBe(0)
  out = run.stdout
}, 120_000)

const numbers = (re: RegExp) => numbersIn(out, re)

describe('npm run demo -- --ai-sdk', () => {
  it('runs 30+ generateText turns, and no prompt the model got was over the token budget', () => {
    const perTurn = numbers(/^ {2}turn +\d+ .* largest prompt +([\d,]+)/gmu)
    expect(perTurn.length).toBeGreaterThanOrEqual(30)
    for (const n of perTurn) expect(n).toBeLessThanOrEqual(TOKEN_BUDGET)
    // The budget is reached, so the bound is what held the prompts, not a short conversation.
    expect(Math.max(...perTurn)).toBeGreaterThan(TOKEN_BUDGET * 0.9)
    expect(numbers(/the largest prompt it got was ([\d,]+) tokens/gu).length).toBe(2)
    expect(out).not.toMatch(/refused [1-9]/u)
    // Multi-step tool loops: one call per host, then the answer.
    expect(out).toMatch(/4 steps check_host/u)
    expect(numbers(/sent whole, it would be a ([\d,]+)-token prompt/gu)[0]).toBeGreaterThan(3 * TOKEN_BUDGET)
  })

  it('shows the same window after the restart, in a second process and in a new session', () => {
    const before = /window fingerprint ([0-9a-f]{16})\)/u.exec(out)?.[1]
    expect(before).toBeDefined()
    expect(out).toContain(`fingerprint ${before}\n  the same window as before the restart: yes`)
    expect(out).toContain('process 1 opens it again too (new store, new ledgerSession): the same window: yes')
  })

  it('recalls the fact that left the window with search_history and read_history, and pins it', () => {
    expect(out).toMatch(/it left the window at \S+, folded into summary #\d+/u)
    expect(out).toContain('the summary the model sees mentions the ticket: no')
    expect(out).toMatch(
      /step 1: the model calls search_history .*\n.*\n {2}step 2: the model calls read_history/u,
    )
    expect(out).toMatch(/step 3: the model calls pin_message/u)
    expect(out).toContain('answer: "It is CHG-20931, approved by Dana Whitfield')
    expect(out).toContain('recall found the evicted fact: yes')
    expect(out).toMatch(/the pinned read_history result \(seq \d+\), 4 turns later, is in the window: yes/u)
  })

  it('writes summaries and says which messages they stand for', () => {
    expect(numbers(/^Summaries: (\d+) written/gmu)[0]).toBeGreaterThan(0)
    expect(out).toMatch(/it stands for [\d,]+ messages, seqs \d+–\d+/u)
    expect(out).toContain('Look inside the file with the CLI')
  })

  it('leaves a file that says the same: the window within budget, the summaries, the pins, the eviction', async () => {
    const store = openContextStore(file)
    try {
      const session = ledgerSession({
        store,
        sessionId: SESSION_ID,
        tokenBudget: TOKEN_BUDGET,
        tokenCounter: jsonTokens,
      })
      const window = await session.window()
      expect(window.reduce((n, m) => n + jsonTokens(m), 0)).toBeLessThanOrEqual(TOKEN_BUDGET)
      const end = out.slice(out.indexOf('At the end:'))
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
    const cli = tsx('src/cli/main.ts', 'window', file, SESSION_ID, '--explain')
    expect(cli.status).toBe(0)
    expect(cli.stdout).toContain('pinned by agent: the task')
    expect(cli.stdout).toMatch(/summary #\d+ of \d+ messages/u)
  })
})
