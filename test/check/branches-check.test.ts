/**
 * `check` on a tree of branches, on SQLite files (docs/cli.md, "check"): a clean tree of forks, forks of
 * forks and abandoned branches holds every rule; a tree broken behind the store's back — a parent chain
 * that loops, a missing parent, a fork point past the parent's conversation, a root with fork columns —
 * is reported per session, and the sessions whose chain is broken are not read; a branch's own state
 * broken behind its back — a branch row past the fork point or under the wrong owner, a kept row in the
 * tail, a pin the pin log does not back, a tail seq without its row, a wrong `fork_tokens` — is reported
 * by the rule that names it.
 */
import { describe, expect, it } from 'vitest'
import { checkSession } from '../../src/check/check-session.js'
import type { ContextStore, MessageData } from '../../src/index.js'
import { cli } from '../cli/support.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-branch-check-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })

/** A tree: root, b forked at 5 with its own turns, c forked from b, and an abandoned branch of root. */
function tree(store: ContextStore): void {
  for (let i = 0; i < 4; i++) store.append('root', [user(`q${i}`), assistant(`a${i}`)])
  store.applyWindow('root', limits(4))
  store.fork('root', { atSeq: 5, newSessionId: 'b' })
  for (let i = 0; i < 3; i++) store.append('b', [user(`b q${i}`), assistant(`b a${i}`)])
  store.pin('b', { seq: 4 })
  store.applyWindow('b', limits(4))
  store.fork('b', { atSeq: 9, newSessionId: 'c' })
  store.rewind('root', { toSeq: 3 })
}

/** Runs `check --json` on a file. */
async function checkJson(file: string): Promise<{
  code: number
  json: {
    ok: boolean
    sessionsChecked: number
    problems: { sessionId: string | null; rule: string; detail: string }[]
  }
}> {
  const r = await cli(['check', file, '--json', '--no-progress'])
  return { code: r.code, json: JSON.parse(r.stdout) as never }
}

const rulesOf = (store: ContextStore, id: string): string[] =>
  checkSession(store, id).problems.map((p) => p.rule)

describe('check on a tree of branches', () => {
  it('finds a clean tree clean', async () => {
    const store = dir.open()
    tree(store)
    store.close()
    const { code, json } = await checkJson(dir.file())
    expect(json.problems).toStrictEqual([])
    expect(json.sessionsChecked).toBe(4)
    expect(code).toBe(0)
  })

  it('reports a parent chain that loops, and does not read the sessions on it', async () => {
    const store = dir.open()
    tree(store)
    const db = store.connection()
    db.prepare(
      "UPDATE sessions SET parent = (SELECT pk FROM sessions WHERE id = 'c'), fork_seq = 1, kind = 'fork', forked_at = 1, fork_version = 1, fork_tokens = 1 WHERE id = 'root'",
    ).run()
    store.close()
    const { code, json } = await checkJson(dir.file())
    expect(code).toBe(1)
    const loops = json.problems.filter((p) => p.rule === 'branch parent')
    expect(loops.map((p) => p.sessionId).sort()).toStrictEqual(['b', 'c', 'root', 'root~1'])
    expect(loops.find((p) => p.sessionId === 'root')?.detail).toMatch(
      /loops: "root" → "c" → "b" → "root~1" → "root"/,
    )
    expect(json.sessionsChecked).toBe(0)
  })

  it('reports a missing parent, a fork point past the parent, a root with fork columns, another format', async () => {
    const store = dir.open()
    tree(store)
    store.fork('root', { atSeq: 2, newSessionId: 'd' })
    const db = store.connection()
    db.prepare("UPDATE sessions SET fork_seq = 40 WHERE id = 'c'").run()
    db.prepare("UPDATE sessions SET fork_tokens = 3 WHERE id = 'root'").run()
    db.prepare("UPDATE sessions SET format = 'ai-sdk/ui' WHERE id = 'b'").run()
    db.pragma('foreign_keys = OFF')
    db.prepare("UPDATE sessions SET parent = 999 WHERE id = 'd'").run()
    store.close()
    const { json } = await checkJson(dir.file())
    const of = (id: string): string[] => json.problems.filter((p) => p.sessionId === id).map((p) => p.rule)
    expect(of('d')).toStrictEqual(['branch parent'])
    expect(json.problems.find((p) => p.sessionId === 'd')?.detail).toMatch(
      /names a missing session \(key 999\)/,
    )
    expect(of('c')).toContain('branch fork point')
    expect(of('root')).toContain('branch kind')
    expect(of('b')).toContain('branch format')
  })

  it("reports a branch's own state changed behind the store's back", () => {
    const broken: [string, string, string][] = [
      [
        'a branch row past the fork point',
        "UPDATE branch_rows SET seq = 30 WHERE session = (SELECT pk FROM sessions WHERE id = 'c') AND seq = (SELECT max(seq) FROM branch_rows WHERE session = (SELECT pk FROM sessions WHERE id = 'c'))",
        'branch rows',
      ],
      [
        'a branch row under another owner',
        "UPDATE branch_rows SET owner = (SELECT pk FROM sessions WHERE id = 'c') WHERE session = (SELECT pk FROM sessions WHERE id = 'c') AND seq = 9",
        'branch rows',
      ],
      [
        'a kept row in the tail',
        "UPDATE branch_rows SET kept = 1 WHERE session = (SELECT pk FROM sessions WHERE id = 'c') AND seq = 9",
        'kept before the boundary',
      ],
      [
        'a pin no pin event backs',
        "UPDATE branch_rows SET pinned = 1 WHERE session = (SELECT pk FROM sessions WHERE id = 'c') AND seq = 9",
        'pin log',
      ],
      [
        'a tail seq without its row',
        "DELETE FROM branch_rows WHERE session = (SELECT pk FROM sessions WHERE id = 'c') AND seq = 9",
        'branch rows',
      ],
      [
        'fork_tokens that are not the inherited sum',
        "UPDATE sessions SET fork_tokens = fork_tokens + 1 WHERE id = 'c'",
        'token sums',
      ],
      [
        "fork flags that are not the conversation's",
        "UPDATE sessions SET fork_pair_start = 1 - coalesce(fork_pair_start, 0) WHERE id = 'c'",
        'derived flags',
      ],
    ]
    for (const [what, sql, rule] of broken) {
      const store = dir.open(`${rule.replace(/\W/g, '-')}-${broken.findIndex((b) => b[0] === what)}.db`)
      tree(store)
      expect(rulesOf(store, 'c'), `${what}: clean before`).toStrictEqual([])
      store.connection().prepare(sql).run()
      expect(rulesOf(store, 'c'), what).toContain(rule)
    }
  })

  it('reads a branch whose pin is inherited: the pin log of its view backs it', () => {
    const store = dir.open()
    tree(store)
    // c inherits b's pin of seq 4 (made before c's fork); b unpins it after: c keeps it.
    store.unpin('b', { seq: 4 })
    expect(store.history('c', { fromSeq: 4, limit: 1 })[0]?.pinned).toBe(true)
    expect(rulesOf(store, 'c')).toStrictEqual([])
    expect(rulesOf(store, 'b')).toStrictEqual([])
  })
})
