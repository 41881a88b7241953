/**
 * Input that is not what it should be gets a typed error naming the problem, never `INTERNAL` or a stack
 * trace: `check` reports a body (or window form, or summary body) that is JSON but not a message as a
 * problem naming the seq (or summary), by the rules `append` holds a body to (`src/check/message-rules.ts`); `import` refuses such a line naming it; `import -i` of a
 * directory names the path and why; an input that never ends a line is refused once the line is longer
 * than the longest an export holds (`src/cli/read-lines.ts`), before memory runs out.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { PassThrough, Readable } from 'node:stream'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { CliError } from '../../src/cli/errors.js'
import { Output, type CliIo } from '../../src/cli/io.js'
import { MAX_LINE_BYTES, readLines } from '../../src/cli/read-lines.js'
import { importSession } from '../../src/cli/commands/import.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

let dir: TempDir
let base: string
let summarized: string
let exported: string[]

beforeAll(async () => {
  dir = tempDir('context-ledger-non-object-')
  base = dir.file('base.db')
  const store = openContextStore(base)
  store.append('s', [
    { role: 'user', content: [{ text: 'q' }] },
    { role: 'assistant', content: [{ text: 'a' }] },
    { role: 'user', content: [{ text: 'q2' }] },
    { role: 'assistant', content: [{ text: 'a2' }] },
  ])
  store.close()
  summarized = dir.file('summarized.db')
  const other = openContextStore(summarized)
  const m = new PersistentConversationManager({ store: other, sessionId: 's', windowSize: 40 })
  for (let i = 0; i < 4; i++)
    m.append([
      { role: 'user', content: [{ text: `q${i}` }] },
      { role: 'assistant', content: [{ text: `a${i}` }] },
    ])
  const folded = await m.summarize(() => 'earlier', { preserveRecentMessages: 2, summaryRatio: 0.5 })
  expect(folded.summary).toBeDefined()
  other.close()
  const r = await cli(['export', base, 's'])
  expect(r.code, r.stderr).toBe(0)
  exported = r.stdout.trimEnd().split('\n')
})
afterAll(() => {
  dir.cleanup()
})

let copies = 0
function changed(sql: string, ...params: unknown[]): string {
  return changedFrom(base, sql, ...params)
}
function changedFrom(from: string, sql: string, ...params: unknown[]): string {
  const file = dir.file(`c${++copies}.db`)
  copyFileSync(from, file)
  const db = new Database(file)
  db.prepare(sql).run(...params)
  db.close()
  return file
}

const NOT_MESSAGES = [
  '[1]',
  'null',
  '42',
  '"text"',
  '{}',
  '{"role":"assistant","content":5}',
  '{"role":"assistant","content":[1]}',
  '{"role":"assistant","content":[null]}',
  '{"role":"assistant","content":[{"toolUse":null}]}',
  '{"role":"system","content":[]}',
]

describe('check: a body that is JSON but not a message is a problem, not a crash', () => {
  it.each(NOT_MESSAGES)('body %s', async (body) => {
    const file = changed('UPDATE messages SET body = ? WHERE seq = 1', body)
    const r = await cli(['check', file, '--json'])
    expect(r.code, r.stderr).toBe(1)
    const report = JSON.parse(r.stdout) as { problems: { rule: string; detail: string }[] }
    const found = report.problems.find((p) => p.rule === 'message body')
    expect(found, JSON.stringify(report.problems)).toBeDefined()
    expect(found?.detail).toContain('seq 1')
  })

  it.each(['[1]', 'null', '42'])('window form %s', async (body) => {
    const file = changed('UPDATE messages SET window_body = ? WHERE seq = 1', body)
    const r = await cli(['check', file, '--json'])
    expect(r.code, r.stderr).toBe(1)
    const report = JSON.parse(r.stdout) as { problems: { rule: string; detail: string }[] }
    expect(report.problems.map((p) => p.detail).join('\n')).toContain('seq 1')
  })

  it.each(['[1]', 'null', '42'])('summary body %s', async (body) => {
    const file = changedFrom(summarized, 'UPDATE summaries SET body = ?', body)
    const r = await cli(['check', file, '--json'])
    expect(r.code, r.stderr).toBe(1)
    const report = JSON.parse(r.stdout) as { problems: { rule: string; detail: string }[] }
    const found = report.problems.find((p) => p.rule === 'summary body')
    expect(found, JSON.stringify(report.problems)).toBeDefined()
    expect(found?.detail).toMatch(/summary \d+ message: Invalid input: expected object/)
  })
})

describe('import: what cannot be read is named', () => {
  it.each(['[1]', 'null', '42'])(
    'a message line whose body is %s is refused naming its line',
    async (body) => {
      const lines = [...exported]
      const m = JSON.parse(lines[2] ?? '') as Record<string, unknown>
      lines[2] = JSON.stringify({ ...m, message: JSON.parse(body) as unknown })
      const r = await cli(['import', dir.file(`i${++copies}.db`), '--json'], {
        stdin: `${lines.join('\n')}\n`,
      })
      expect(r.code, r.stderr).toBe(2)
      const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
      expect(error.code).toBe('INVALID_EXPORT')
      expect(error.message).toMatch(/^line 3: /)
    },
  )

  it('a directory given as the input', async () => {
    const input = dir.file('a-directory')
    mkdirSync(input)
    const r = await cli(['import', dir.file('d.db'), '-i', input, '--json'])
    expect(r.code).toBe(2)
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('USAGE')
    expect(error.message).toContain(input)
    expect(error.message).toContain('is a directory')
  })

  it('an input that never ends a line (/dev/zero) is refused at the line limit', async () => {
    const sink = { isTTY: false, write: () => true }
    const io: CliIo = { stdout: sink, stderr: sink, stdin: new PassThrough(), env: {} }
    const error = await importSession({ io, out: new Output(io) }, dir.file('z.db'), {
      input: '/dev/zero',
      maxLineBytes: 1 << 20,
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).code).toBe('INVALID_EXPORT')
    expect((error as CliError).message).toMatch(/^line 1: longer than 1,048,576 bytes/)
  })
})

describe('readLines', () => {
  it('gives the lines of any chunking, CRLF or LF, the last one without its newline', async () => {
    const text = 'a\r\nbé\n\nc'
    const bytes = Buffer.from(text)
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)]
      const lines: string[] = []
      for await (const l of readLines(Readable.from(chunks), { name: 'x' })) lines.push(l)
      expect(lines).toStrictEqual(['a', 'bé', '', 'c'])
    }
  })

  it('refuses an endless line once it passes the bound, naming it', async () => {
    function* endless(): Generator<Buffer> {
      for (;;) yield Buffer.alloc(4096)
    }
    const lines = readLines(Readable.from(endless()), { name: 'x', maxLineBytes: 10_000 })
    await expect(lines.next()).rejects.toThrow(/^line 1: longer than 10,000 bytes/)
    expect(MAX_LINE_BYTES).toBeGreaterThan(256 * 1024 * 1024)
  })
})
