/**
 * The command line on a tree of branches (docs/cli.md, "branches"), on real SQLite files: `branches`
 * prints the tree a session is in (or every tree) with each branch's parent, fork point, who, when, why,
 * kind and messages, as a table and as `--json`; `sessions` shows each branch's parent and fork point;
 * `history`, `window`, `search` and `evictions` read a branch's whole conversation by its id.
 */
import { describe, expect, it } from 'vitest'
import type { ContextStore, MessageData } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const dir = useTempDir('context-ledger-cli-branches-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
const limits = (windowSize: number) => ({ windowSize, tokenBudget: undefined, first: 0, last: 0 })

/** root (8 messages) → rewound to 3; b forked at 5 (now under root~1) with 2 own; c forked from b; d at 2. */
function tree(store: ContextStore): void {
  for (let i = 0; i < 4; i++)
    store.append('root', [user(`root question ${i}`), assistant(`root answer ${i}`)])
  store.applyWindow('root', limits(4))
  store.fork('root', { atSeq: 5, newSessionId: 'b', actor: 'agent', reason: 'try the other index' })
  store.append('b', [user('branch question'), assistant('branch answer about indexes')])
  store.fork('b', { atSeq: 7, newSessionId: 'c' })
  store.fork('root', { atSeq: 2, newSessionId: 'd' })
  store.rewind('root', { toSeq: 3, reason: 'bad tool run' })
  store.append('other', [user('hello'), assistant('hi')])
}

function withTree(): string {
  const store = dir.open()
  tree(store)
  store.close()
  return dir.file()
}

describe('context-ledger branches', () => {
  it('prints the tree a session is in: parent first, each branch under it, with its fork', async () => {
    const file = withTree()
    const r = await cli(['branches', file, 'c'], { columns: 160 })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^branch\s+kind\s+fork at\s+messages\s+own\s+by\s+made \(UTC\)\s+why$/)
    // Children by when they were made: d (forked) before root~1 (made by the rewind).
    const expected: [string, string, string, string, string][] = [
      ['root', 'root', '—', '4', '4'],
      ['├─ d', 'fork', '2', '3', '0'],
      ['└─ root~1', 'abandoned', '3', '8', '4'],
      ['   └─ b', 'fork', '5', '8', '2'],
      ['      └─ c', 'fork', '7', '8', '0'],
    ]
    const rows = lines.slice(2, -1)
    expect(rows).toHaveLength(expected.length)
    for (const [i, [branch, ...cells]] of expected.entries())
      expect(rows[i]).toMatch(new RegExp(`^${branch}\\s+${cells.join('\\s+')}\\s`))
    expect(lines.find((l) => l.includes('└─ b'))).toMatch(
      /agent\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+try the other index$/,
    )
    expect(lines.find((l) => l.includes('root~1'))).toMatch(/user .* bad tool run$/)
    expect(lines.at(-1)).toBe('1 tree, 5 sessions; fork at: the last seq a branch shares with its parent')
  })

  it('prints every tree of the file without a session', async () => {
    const file = withTree()
    const r = await cli(['branches', file])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^other\s+root\s+—/m)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^2 trees, 6 sessions/)
  })

  it('prints the same as --json, one list per tree in the order of branches()', async () => {
    const file = withTree()
    const r = await cli(['branches', file, 'b', '--json'])
    const json = JSON.parse(r.stdout) as {
      file: string
      sessionId: string
      trees: Record<string, unknown>[][]
    }
    expect(json.sessionId).toBe('b')
    const tree = json.trees[0] ?? []
    expect(
      tree.map((b) => [b.sessionId, b.parentId, b.forkSeq, b.kind, b.depth, b.messageCount, b.ownMessages]),
    ).toStrictEqual([
      ['root', null, null, 'root', 0, 4, 4],
      ['d', 'root', 2, 'fork', 1, 3, 0],
      ['root~1', 'root', 3, 'abandoned', 1, 8, 4],
      ['b', 'root~1', 5, 'fork', 2, 8, 2],
      ['c', 'b', 7, 'fork', 3, 8, 0],
    ])
    expect(tree[3]).toMatchObject({ actor: 'agent', reason: 'try the other index' })
    expect(tree[2]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(tree[0]).toMatchObject({ actor: null, reason: null })
  })

  it('refuses an unknown session with exit 2, and says so for a file without sessions', async () => {
    const file = withTree()
    const r = await cli(['branches', file, 'nope', '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'UNKNOWN_SESSION' } })
    dir.open('empty.db').close()
    const empty = await cli(['branches', dir.file('empty.db')])
    expect(empty.stdout).toContain('holds no sessions yet')
  })
})

describe('the other commands on a branch', () => {
  it('sessions shows each branch with its parent and fork point', async () => {
    const file = withTree()
    const r = await cli(['sessions', file], { columns: 200 })
    expect(r.stdout).toMatch(/\bparent\s+fork at\s+session$/m)
    expect(r.stdout).toMatch(/\broot~1\s+5\s+b$/m)
    expect(r.stdout).toMatch(/\broot \(abandoned\)\s+3\s+root~1$/m)
    expect(r.stdout).toMatch(/—\s+—\s+root$/m)
    const json = JSON.parse((await cli(['sessions', file, '--json'])).stdout) as {
      sessions: {
        id: string
        parentId: string | null
        forkSeq: number | null
        kind: string
        messageCount: number
      }[]
    }
    const byId = new Map(json.sessions.map((s) => [s.id, s]))
    expect(byId.get('c')).toMatchObject({ parentId: 'b', forkSeq: 7, kind: 'fork', messageCount: 8 })
    expect(byId.get('root')).toMatchObject({ parentId: null, forkSeq: null, kind: 'root', messageCount: 4 })
  })

  it('history, window and search read a branch by its id: its ancestors rows and its own', async () => {
    const file = withTree()
    const history = JSON.parse((await cli(['history', file, 'c', '--json'])).stdout) as {
      messageCount: number
      entries: { seq: number; message: { content: { text: string }[] } }[]
    }
    expect(history.messageCount).toBe(8)
    expect(history.entries.map((e) => e.message.content[0]?.text)).toStrictEqual([
      'root question 0',
      'root answer 0',
      'root question 1',
      'root answer 1',
      'root question 2',
      'root answer 2',
      'branch question',
      'branch answer about indexes',
    ])
    const window = JSON.parse((await cli(['window', file, 'c', '--json'])).stdout) as {
      messages: { seq: number }[]
    }
    expect(window.messages.map((m) => m.seq).at(-1)).toBe(7)
    for (const scan of [[], ['--scan']]) {
      const found = JSON.parse(
        (await cli(['search', file, 'question', '--session', 'c', '--json', ...scan])).stdout,
      ) as {
        matches: { sessionId: string; seq: number; snippet: string }[]
      }
      const seqs = found.matches.map((m) => m.seq).sort((a, b) => a - b)
      expect(seqs, scan.join()).toStrictEqual([0, 2, 4, 6])
      expect(found.matches.every((m) => m.sessionId === 'c')).toBe(true)
      expect(found.matches.find((m) => m.seq === 2)?.snippet).toContain('root question 1')
    }
    // The root's rows after the fork are not the branch's.
    const rootOnly = JSON.parse((await cli(['search', file, '3', '--session', 'c', '--json'])).stdout) as {
      matches: unknown[]
    }
    expect(rootOnly.matches).toStrictEqual([])
  })

  it("evictions of a branch lists its inherited cuts, and a rewound session's rewind", async () => {
    const file = withTree()
    const c = JSON.parse((await cli(['evictions', file, 'c', '--json'])).stdout) as {
      events: { fromSeq: number; lastSeq: number; cut: string; inheritedFrom: string | null }[]
      evictedMessages: number
    }
    // The root's cut of 0–3: the rewind moved the root's window back to seq 2, so the part it shows
    // again is the abandoned branch's own row now; c reads each part from where it lies.
    expect(c.events.map((e) => [e.fromSeq, e.lastSeq, e.cut, e.inheritedFrom])).toStrictEqual([
      [0, 1, 'trim-point', 'root'],
      [2, 3, 'trim-point', 'root~1'],
    ])
    expect(c.evictedMessages).toBe(4)
    const root = JSON.parse((await cli(['evictions', file, 'root', '--json'])).stdout) as {
      events: { fromSeq: number; lastSeq: number; cut: string; abandonedId: string | null }[]
      eventLog: boolean
    }
    expect(root.events.find((e) => e.cut === 'rewind')).toMatchObject({
      fromSeq: 4,
      lastSeq: 7,
      abandonedId: 'root~1',
    })
    const text = await cli(['evictions', file, 'root'], { columns: 200 })
    expect(text.stdout).toMatch(/4–7\s+rewind\s+rewind\s+branch root~1 \(abandoned\)/)
  })
})
