/**
 * `import` refuses an export that does not describe a valid session: each line can be well formed while
 * the lines together contradict each other (a running token sum, a boundary the kept rows disagree with,
 * a current summary that has ended …). The imported session is checked by the checker `check` runs,
 * inside the import's transaction, and any problem rolls it back: exit 2 naming the line and the
 * problem, with nothing written — no session in an existing file, no file where there was none.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

let dir: TempDir
let lines: Record<string, unknown>[]

beforeAll(async () => {
  dir = tempDir('context-ledger-import-check-')
  const source = dir.file('agent.db')
  const store = openContextStore(source)
  await buildRichLedger(store)
  store.close()
  const r = await cli(['export', source, 'support-42'])
  expect(r.code, r.stderr).toBe(0)
  lines = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
})
afterAll(() => {
  dir.cleanup()
})

type Line = Record<string, unknown> & { session?: Record<string, unknown> }

/** The export with `change` applied to a copy of its lines, as text. */
function edited(change: (lines: Line[]) => void): string {
  const copy = JSON.parse(JSON.stringify(lines)) as Line[]
  change(copy)
  return copy.map((l) => JSON.stringify(l)).join('\n') + '\n'
}

const message = (ls: Line[], seq: number): Line => {
  const l = ls.find((x) => x.type === 'message' && x.seq === seq)
  if (l === undefined) throw new Error(`no message ${seq}`)
  return l
}
const summary = (ls: Line[], id: number): Line => {
  const l = ls.find((x) => x.type === 'summary' && x.id === id)
  if (l === undefined) throw new Error(`no summary ${id}`)
  return l
}
const eviction = (ls: Line[], fromSeq: number, cut: string): Line => {
  const l = ls.find((x) => x.type === 'eviction' && x.fromSeq === fromSeq && x.cut === cut)
  if (l === undefined) throw new Error(`no eviction ${fromSeq} ${cut}`)
  return l
}
const header = (ls: Line[]): Record<string, unknown> => ls[0]?.session as Record<string, unknown>
/** The line number of a message (the header is line 1). */
const lineOfSeq = (seq: number): number => seq + 2
const lineOfSummary = (id: number): number => lines.findIndex((l) => l.type === 'summary' && l.id === id) + 1

describe('import refuses an inconsistent export, naming the line, with nothing written', () => {
  const cases: [string, (ls: Line[]) => void, () => number[], RegExp][] = [
    [
      'a cumTokens that is not the running sum',
      (ls) => {
        const m = message(ls, 5)
        m.cumTokens = (m.cumTokens as number) + 1
      },
      () => [lineOfSeq(5)],
      /token sums/,
    ],
    [
      'a header boundary the kept rows contradict',
      (ls) => {
        header(ls).boundary = 2
      },
      // The header, or a line the boundary contradicts: a kept row after it, the summary that ends later.
      () => [1, lineOfSeq(3), lineOfSummary(2)],
      /boundary|kept/,
    ],
    [
      'a header summary that names an ended summary',
      (ls) => {
        header(ls).summary = 1
      },
      () => [1, lineOfSummary(1), lineOfSummary(2)],
      /summary/,
    ],
    [
      'a wrong keptCount',
      (ls) => {
        header(ls).keptCount = 3
      },
      () => [1],
      /kept totals/,
    ],
    [
      'summary seqs reversed',
      (ls) => {
        summary(ls, 1).seqs = [
          [24, 22],
          [11, 10],
        ]
      },
      () => [lineOfSummary(1)],
      /summary seqs/,
    ],
    [
      'summary seqs beyond the archive',
      (ls) => {
        const s = summary(ls, 1)
        s.seqs = [[40, 44]]
      },
      () => [lineOfSummary(1)],
      /summary seqs/,
    ],
    [
      'every trimPoint flag false',
      (ls) => {
        for (const l of ls) if (l.type === 'message') l.trimPoint = false
      },
      () => [lineOfSeq(0)],
      /derived flags/,
    ],
    [
      'a pinned flag with no pin event',
      (ls) => {
        message(ls, 6).pinned = true
      },
      () => [lineOfSeq(6)],
      /pin log/,
    ],
    [
      'a role that is not the body’s',
      (ls) => {
        message(ls, 2).role = 'assistant'
      },
      () => [lineOfSeq(2)],
      /role column/,
    ],
    [
      'limits that are not limits',
      (ls) => {
        header(ls).limits = { size: 8 }
      },
      () => [1],
      /session limits/,
    ],
    // The eviction log (its problems name the header: a log row is no message's or summary's).
    [
      'an eviction run extended into the window (seqs at or above the boundary)',
      (ls) => {
        eviction(ls, 25, 'fold').toSeq = 30
      },
      () => [1],
      /eviction log boundary/,
    ],
    [
      'an eviction logged before its messages were appended',
      (ls) => {
        eviction(ls, 2, 'trim-point').at = 0
      },
      () => [1],
      /eviction log time/,
    ],
    [
      'a fold row at seqs its summary did not fold',
      (ls) => {
        const e = eviction(ls, 10, 'fold')
        e.fromSeq = 12
        e.toSeq = 12
      },
      () => [1],
      /eviction log summary/,
    ],
    [
      'a fold row whose version was lowered',
      (ls) => {
        eviction(ls, 22, 'fold').version = 12
      },
      () => [1],
      /eviction log fold version/,
    ],
    [
      'summary seqs that are no list (an object whose one key is __proto__)',
      (ls) => {
        summary(ls, 1).seqs = JSON.parse('{"__proto__": []}') as unknown
      },
      () => [lineOfSummary(1)],
      /seqs: expected an array of \[from, to\] seq ranges/,
    ],
    [
      'a message time past what a Date holds',
      (ls) => {
        message(ls, 3).createdAt = Number.MAX_SAFE_INTEGER
      },
      () => [lineOfSeq(3)],
      /createdAt/,
    ],
    [
      'an eviction time before 1970',
      (ls) => {
        eviction(ls, 25, 'fold').at = -1
      },
      () => [lines.findIndex((l) => l.type === 'eviction' && l.fromSeq === 25 && l.cut === 'fold') + 1],
      /at/,
    ],
    [
      'a later fold made older than an earlier one',
      (ls) => {
        eviction(ls, 25, 'fold').version = 7
      },
      () => [1],
      /eviction log fold version/,
    ],
  ]

  it.each(cases)('%s', async (_what, change, lines, problem) => {
    const input = edited(change)
    // Into a new file: no file is left behind.
    const fresh = dir.file('fresh.db')
    const r = await cli(['import', fresh], { stdin: input })
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(lines().map(String)).toContain(/^context-ledger: line (\d+): /.exec(r.stderr)?.[1])
    expect(r.stderr).toMatch(problem)
    expect(r.stderr).toContain('nothing was imported')
    for (const side of ['', '-wal', '-shm']) expect(existsSync(fresh + side)).toBe(false)
    // Into an existing ledger: it is as it was.
    const existing = dir.file('existing.db')
    if (!existsSync(existing)) openContextStore(existing).close()
    const before = await cli(['sessions', existing, '--json'])
    const again = await cli(['import', existing, '--json'], { stdin: input })
    expect(again.code).toBe(2)
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'INVALID_EXPORT' } })
    expect((await cli(['sessions', existing, '--json'])).stdout).toBe(before.stdout)
  })

  it('still imports the export as it was', async () => {
    const target = dir.file('ok.db')
    const r = await cli(['import', target], { stdin: edited(() => undefined) })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(target).length).toBeGreaterThan(0)
    expect((await cli(['check', target])).code).toBe(0)
  })
})
