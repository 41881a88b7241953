/**
 * Adversarial: `context-ledger import` of a tree of branches whose headers were tampered with, on real
 * SQLite files. Each bad input — a fork point past the parent's end (in the input or in the file), a fork
 * seq that is not a seq, a kind that contradicts the parent, a session twice, a branch whose own rows do
 * not continue its fork point, a parent that is an id already in the file under another tree — is refused
 * with exit code 2 and a typed error naming the session, and the target file is byte-identical (or not
 * created). What is accepted passes `context-ledger check`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { openContextStore, type ContextStore, type MessageData } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { cli } from '../cli/support.js'

const dir = useTempDir('context-ledger-adv-import-')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

interface Header {
  type: 'header'
  session: {
    id: string
    branch?: { parent: string; forkSeq: unknown; kind: unknown; [k: string]: unknown }
    [k: string]: unknown
  }
  [k: string]: unknown
}
type Line = Header | { type: string; seq?: number; [k: string]: unknown }

/** root [q0 a0 q1 a1] ; b forked at 1 with [bq ba] ; c forked from b at 2 with [cq]. */
function tree(store: ContextStore): void {
  store.append('root', [user('q0'), assistant('a0'), user('q1'), assistant('a1')])
  store.fork('root', { atSeq: 1, newSessionId: 'b' })
  store.append('b', [user('bq'), assistant('ba')])
  store.fork('b', { atSeq: 2, newSessionId: 'c' })
  store.append('c', [user('cq')])
}

let sources = 0

async function exported(): Promise<Line[]> {
  const name = `source-${sources++}.db`
  const store = dir.open(name)
  tree(store)
  store.close()
  const r = await cli(['export', dir.file(name), 'root', '--tree'])
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
}

const headerOf = (lines: Line[], id: string): Header => {
  const h = lines.find((l): l is Header => l.type === 'header' && (l as Header).session.id === id)
  if (h === undefined) throw new Error(`no header ${id}`)
  return h
}

/** A malformed input (INVALID_EXPORT) or a tree it cannot make (INVALID_OPTIONS). */
const BAD = ['INVALID_EXPORT', 'INVALID_OPTIONS'] as const

/** The branch part of a session's header. */
const branchOf = (lines: Line[], id: string): NonNullable<Header['session']['branch']> => {
  const b = headerOf(lines, id).session.branch
  if (b === undefined) throw new Error(`${id} is not a branch`)
  return b
}

const text = (lines: Line[]): string => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`

/** Imports `input` into `target`; expects a refusal with `code` naming `session`, the file untouched. */
async function refused(
  target: string,
  input: string,
  codes: readonly string[],
  session: string,
): Promise<string> {
  const before = existsSync(target) ? readFileSync(target) : undefined
  const r = await cli(['import', target, '--json'], { stdin: input })
  let parsed: { error?: { code: string; message: string } } = {}
  try {
    parsed = JSON.parse(r.stdout) as typeof parsed
  } catch {
    // not JSON: fails below
  }
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2)
  expect(codes, r.stdout).toContain(parsed.error?.code)
  if (process.env.ADV_DEBUG) console.log(parsed.error?.code, parsed.error?.message)
  // the session by id, or its header's line
  expect(parsed.error?.message).toMatch(new RegExp(`"${session}"|^line \\d+:`))
  if (before === undefined) expect(existsSync(target)).toBe(false)
  else expect(readFileSync(target).equals(before)).toBe(true)
  return parsed.error?.message ?? ''
}

describe('import refuses tampered branch trees', () => {
  it('the unmodified export imports and checks clean (the baseline)', async () => {
    const lines = await exported()
    const r = await cli(['import', dir.file('ok.db')], { stdin: text(lines) })
    expect(r.code, r.stderr).toBe(0)
    const checked = await cli(['check', dir.file('ok.db'), '--json', '--no-progress'])
    expect((JSON.parse(checked.stdout) as { problems: unknown[] }).problems).toStrictEqual([])
  })

  it.each([
    ['past the parent end', 4],
    ['far past the parent end', 1_000_000],
    ['negative', -1],
    ['a string', '1'],
    ['a fraction', 1.5],
    ['null', null],
  ])('a fork seq %s is refused naming the branch', async (_, forkSeq) => {
    const lines = await exported()
    branchOf(lines, 'b').forkSeq = forkSeq
    await refused(dir.file(`t-${String(forkSeq)}.db`), text(lines), BAD, 'b')
  })

  it("a fork seq past the parent's end with the branch's rows renumbered to match is refused", async () => {
    const lines = await exported()
    const b = headerOf(lines, 'b')
    branchOf(lines, 'b').forkSeq = 4 // root holds seqs 0–3
    const h = lines.indexOf(b)
    let k = 0
    for (let i = h + 1; i < lines.length && lines[i]?.type !== 'header'; i++)
      if (lines[i]?.type === 'message') (lines[i] as { seq: number }).seq = 5 + k++
    branchOf(lines, 'c').forkSeq = 5
    const c = lines.indexOf(headerOf(lines, 'c'))
    for (let i = c + 1; i < lines.length && lines[i]?.type !== 'header'; i++)
      if (lines[i]?.type === 'message') (lines[i] as { seq: number }).seq = 6
    await refused(dir.file('renumbered.db'), text(lines), BAD, 'b')
  })

  it('a kind that is not root/fork/abandoned, or a branch that says it is a root, is refused', async () => {
    for (const kind of ['root', 'bogus', 7]) {
      const lines = await exported()
      branchOf(lines, 'b').kind = kind
      await refused(dir.file(`k-${String(kind)}.db`), text(lines), BAD, 'b')
    }
  })

  it('the same session twice in one input is refused', async () => {
    const lines = await exported()
    const c = lines.findIndex((l) => l.type === 'header' && (l as Header).session.id === 'c')
    const again = lines.slice(c)
    await refused(dir.file('twice.db'), text([...lines, ...again]), ['SESSION_EXISTS', 'INVALID_EXPORT'], 'c')
  })

  it('a branch whose own rows do not start right after its fork point is refused', async () => {
    const lines = await exported()
    // b's own messages are seqs 2 and 3; renumber them 5 and 6
    const h = lines.indexOf(headerOf(lines, 'b'))
    let k = 0
    for (let i = h + 1; i < lines.length && lines[i]?.type !== 'header'; i++)
      if (lines[i]?.type === 'message') (lines[i] as { seq: number }).seq = 5 + k++
    await refused(dir.file('gap.db'), text(lines), BAD, 'b')
  })

  it("a branch imported alone whose fork point is past its parent's end in the file is refused", async () => {
    const lines = await exported()
    // a file whose root holds only [q0]
    const small = openContextStore(dir.file('small.db'))
    small.append('root', [user('other q0')])
    small.close()
    const b = lines.indexOf(headerOf(lines, 'b'))
    const c = lines.indexOf(headerOf(lines, 'c'))
    await refused(dir.file('small.db'), text(lines.slice(b, c)), BAD, 'b')
  })

  it('an input naming ids the file already holds is refused, the file untouched', async () => {
    const lines = await exported()
    const target = dir.open('held.db')
    target.append('c', [user('mine')])
    target.close()
    await refused(dir.file('held.db'), text(lines), ['SESSION_EXISTS', 'INVALID_EXPORT'], 'c')
  })
})
