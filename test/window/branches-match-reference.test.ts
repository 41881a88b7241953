/**
 * Branches against a reference where a fork is a full copy. Random commands grow a tree of sessions —
 * fork (at the newest message and in the middle, by seq or trackingId), rewind, appends on either side
 * (text turns, single and parallel tool calls, results of calls a fork left open, half-answered calls the
 * store repairs, late results, results for a sibling's call, a sibling's message sent again), pin and
 * unpin, applyWindow and overflow reduce with random limits, folds into a summary with a scripted
 * summarizer, deleteSession (refused over live children, or the subtree), and bad input (nothing written).
 * The reference (test/helpers/branch-tree.ts) keeps every branch as its own array and plans its window
 * with the pure planner. After every command, for every session of the tree: `history()`, `window()` and
 * `session()` equal the reference's, every window rule holds (the rules checker), `branches()` lists the
 * tree the reference has, and a deleted session is gone — so nothing a sibling, a child or the parent did
 * after a fork is visible in a branch. Runs on both backends (the conformance suite).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { command, EXAMPLES, Ids, turnMessages, type Command } from '../helpers/branch-commands.js'
import { emptyBranch, factsOf, openCalls, windowOf } from '../helpers/branch-model.js'
import { BranchRun, pickListed, reached, type BranchStore } from '../helpers/branch-run.js'
import type { TreeNode } from '../helpers/branch-tree.js'
import { turnShape, type TurnShape } from '../helpers/conversations.js'
import { fcRuns } from '../helpers/runs.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import type { WindowRuleProblem } from '../../src/check/window-rules.js'

/**
 * The sessions of a tree are checked through the store's API (the window rules in full, the message
 * rules): `check` reads a branch's bookkeeping columns (tool calls, eviction log) as a root's until it
 * learns branches and rewinds (br-reads); the trunk-only property runs it in full.
 */
const THROUGH_API = true

/**
 * Problems reported in /work/wt/BRANCH-FINDINGS.md and not fixed yet, left out so the property finds the
 * next: a fork or rewind inside a step's answers leaves a call open behind a result; a link of an inherited
 * summary chain shows the end its owner gave it after the fork; on PostgreSQL, an inherited summary's chain
 * is not listed.
 */
function known(run: BranchRun): (p: WindowRuleProblem) => boolean {
  return (p) =>
    ((p.rule === 'toolUse answered' || p.rule === 'alternate toolUse answered next') &&
      openBehindResult(run.tree.nodes.get(p.sessionId))) ||
    // An inherited chain's link ended by its owner after the fork (BRANCH-FINDINGS.md, "a grandparent's
    // later eviction").
    (p.rule === 'summary chain order' &&
      /replaces \d+ \((evicted|dropped)/.test(p.detail) &&
      p.sessionId !== run.tree.rootId) ||
    // PostgreSQL lists an inherited summary without the chain it replaces (BRANCH-FINDINGS.md, "pg:
    // summaries(branch) lists an inherited summary without its chain"; SQLite lists it since core 7da6c75).
    (BACKEND === 'postgres' &&
      (p.rule === 'summary replaces' || p.rule === 'summary chain complete') &&
      p.sessionId !== run.tree.rootId)
}

/** Whether the log clock never goes back on this backend (a delete cannot hide log entries from a later fork). */
const CLOCK_KEPT = BACKEND === 'sqlite'

/** Whether a session's conversation ends with calls open behind a result (a fork or rewind inside a step). */
function openBehindResult(n: TreeNode | undefined): boolean {
  const archive = n?.state.archive ?? []
  return archive.at(-1)?.role === 'user' && openCalls(archive).length > 0
}

/** The cases every run of the branch property reaches. */
const CASES = [
  'a result for a call the branch never made',
  'a repair row',
  'a late result',
  'an append in a branch',
  'a fork at the newest message',
  'a fork in the middle',
  'a fork of a fork',
  'a rewind to before the fork point',
  'a rewind to the newest message',
  'a rewind',
  'a fold over a summary in a branch',
  'a fold',
  'a delete refused',
  'a delete of a subtree',
  'a delete',
  'a replacement of an inherited row',
]

const backend = makeBackend()
let store: BranchStore
let runs = 0
beforeAll(async () => {
  store = await backend.open()
})
afterAll(async () => {
  await backend.cleanup()
})

/** What `history()` must return of a session, from the reference (times left out). */
function expectedHistory(n: TreeNode) {
  const s = n.state
  const kept = new Set(s.kept)
  return s.archive.map((message, seq) => ({
    seq,
    trackingId: message.trackingId,
    message,
    tokens: s.tokens[seq],
    pinned: s.pinned[seq] === true,
    inWindow: seq >= s.boundary || kept.has(seq),
    windowMessage: s.forms[seq],
    late: s.late[seq] === true,
  }))
}

/** Every session of the tree holds what the reference holds; the deleted ones are gone. */
async function compareTree(run: BranchRun, step: string, listing = true): Promise<void> {
  const throughApi = listing && THROUGH_API
  for (const n of run.tree.nodes.values()) {
    const where = `${step}: session ${n.id}`
    const history = await store.history(n.id, { limit: 100_000 })
    expect(
      history.map((e) => ({
        seq: e.seq,
        trackingId: e.trackingId,
        message: e.message,
        tokens: e.tokens,
        pinned: e.pinned,
        inWindow: e.inWindow,
        windowMessage: e.windowMessage,
        late: e.late,
      })),
      `${where}: history`,
    ).toStrictEqual(expectedHistory(n))
    expect(await store.window(n.id), `${where}: window`).toStrictEqual(windowOf(n.state))
    const facts = await store.session(n.id)
    expect(
      facts === undefined
        ? undefined
        : {
            messageCount: facts.messageCount,
            windowMessages: facts.windowMessages,
            windowTokens: facts.windowTokens,
            summaryId: facts.summaryId,
            totalTokens: facts.totalTokens,
            pinnedCount: facts.pinnedCount,
            boundary: facts.boundary,
          },
      `${where}: session`,
    ).toStrictEqual(factsOf(n.state))
    const pins = await store.pinEvents(n.id)
    // Known on PostgreSQL (BRANCH-FINDINGS.md, "the log clock goes back"; fixed on SQLite by core d52c0d8):
    // after a delete the pin log may lose entries.
    if (CLOCK_KEPT || run.gone.size === 0)
      expect(
        pins.map((e) => ({ seq: e.seq, action: e.action })),
        `${where}: pin log`,
      ).toStrictEqual(n.state.pinLog)
    const edits = await store.edits(n.id)
    if (CLOCK_KEPT || run.gone.size === 0)
      expect(
        edits.map((e) => ({ seq: e.seq, kind: e.kind })),
        `${where}: edit log`,
      ).toStrictEqual(n.state.editLog)
    // The summary the window shows is listed as current, inherited or not.
    const current = (await store.summaries(n.id, { limit: 10_000 })).find((x) => x.current)
    expect(current?.id, `${where}: current summary`).toBe(n.state.summary?.id)
    const limits = n.state.limits
    await assertWindowRulesOf(
      store,
      n.id,
      limits === undefined ? {} : { first: limits.first, last: limits.last },
      { throughApi, known: run.known },
    )
  }
  if (listing && run.tree.nodes.has(run.tree.rootId))
    expect((await store.branches(run.tree.rootId)).map(pickListed), `${step}: branches`).toStrictEqual(
      run.tree.listing(),
    )
  for (const id of run.gone) {
    expect(await store.session(id), `${step}: ${id} deleted`).toBeUndefined()
    expect(await store.history(id), `${step}: ${id} deleted`).toStrictEqual([])
  }
}

/** Runs `commands` on a new tree, comparing it with the reference after each. */
async function runTree(
  opening: readonly TurnShape[],
  commands: readonly Command[],
  listing = true,
): Promise<void> {
  const runId = `r${runs++}`
  const run = new BranchRun(store, backend, runId, emptyBranch())
  run.throughApi = listing && THROUGH_API
  run.known = known(run)
  const ids = new Ids(`${runId}o`)
  await run.open(opening.flatMap((t) => turnMessages(t, ids)))
  await compareTree(run, 'opening', listing)
  for (const [i, c] of commands.entries()) {
    await run.step(c)
    await compareTree(run, `command ${i} (${c.kind})`, listing)
  }
}

/** The commands that never make a branch. */
const TRUNK: readonly Command['kind'][] = ['append', 'late', 'pin', 'unpin', 'replace', 'apply', 'summarize']

describe(`branches [${BACKEND}]`, () => {
  it('the reference is the store on a session without branches (what the branch runs compare against)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnShape, { minLength: 1, maxLength: 3 }),
        fc.array(
          command.filter((c) => TRUNK.includes(c.kind)),
          { minLength: 1, maxLength: 30 },
        ),
        async (opening, commands) => runTree(opening, commands, false),
      ),
      { numRuns: fcRuns(BACKEND === 'postgres' ? 5 : 20) },
    )
  }, 600_000)

  it('every branch holds what its own copy in the reference holds, step after step', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnShape, { minLength: 1, maxLength: 3 }),
        fc.array(command, { minLength: 1, maxLength: 30 }),
        async (opening, commands) => runTree(opening, commands),
      ),
      // PostgreSQL takes milliseconds a call where SQLite takes microseconds: fewer runs, the same checks.
      { numRuns: fcRuns(BACKEND === 'postgres' ? 4 : 80), examples: EXAMPLES },
    )
    // The generator reaches every case the property is about (a change to it that stops reaching one
    // would otherwise pass unnoticed). The generator is the same on both backends; PostgreSQL's 4 runs
    // reach a part of it, so the check is SQLite's (80 runs) and PostgreSQL's only when FC_RUNS is raised.
    if (BACKEND !== 'postgres' || fcRuns(4) >= 80)
      expect([...reached.keys()].sort()).toStrictEqual([...CASES].sort())
  }, 600_000)
})
