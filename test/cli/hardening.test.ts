/**
 * The command line's smaller promises: `search` ignores letter case in every script, a usage error is
 * one line (and a JSON error with `--json`), `FORCE_COLOR=0` turns colour off, `history --json` streams
 * however big `--limit` is, `history --limit 0` says what it did, and `import` says why it will not
 * write into an older-schema file.
 */
import { SET_USER_VERSION } from '../../src/db/migrate.js'
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import type { CliIo } from '../../src/cli/io.js'
import { runCli } from '../../src/cli/program.js'
import { findIgnoringCase, likePattern } from '../../src/cli/text-match.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'ledger-schema0.sqlite')
const MESSAGES = 1200

let dir: TempDir
let file: string

beforeAll(() => {
  dir = tempDir('context-ledger-cli-hardening-')
  file = dir.file('agent.db')
  const store = openContextStore(file)
  store.append('q', [
    { role: 'user', content: [{ text: 'İstanbul STRASSE ΣΊΣΥΦΟΣ' }] },
    { role: 'assistant', content: [{ text: 'À L’ÉCOLE, ſtop' }] },
    { role: 'user', content: [{ text: 'she said "hello world" to me' }] },
  ])
  for (let i = 0; i < MESSAGES; i += 100)
    store.append(
      'big',
      Array.from({ length: 100 }, (_, j) => ({
        role: (i + j) % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: [{ text: `message ${i + j} with "quotes", a tab\there and ünïcödé` }],
      })),
    )
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

describe('search ignores letter case in every script', () => {
  it('finds non-ASCII text whatever its case, and the ASCII that LIKE would miss', async () => {
    for (const [query, seq] of [
      ['σίσυφος', 0],
      ['ΣΊΣΥΦΟΣ', 0],
      ['strasse', 0],
      ['l’école', 1],
      ['STOP', 1],
      ['"Hello World"', 2],
    ] as const) {
      const r = await cli(['search', file, query, '--session', 'q', '--json'])
      expect(r.code, r.stderr).toBe(0)
      const found = JSON.parse(r.stdout) as { matches: { seq: number; snippet: string }[] }
      expect(
        found.matches.map((m) => m.seq),
        query,
      ).toStrictEqual([seq])
    }
    // The index matches words (the tokenizer drops the `!`); the scan matches the substring, which is not there.
    expect(JSON.parse((await cli(['search', file, 'ΣΊΣΥΦΟΣ!', '--json'])).stdout)).toMatchObject({
      method: 'index',
      matches: [{ seq: 0 }],
    })
    expect(JSON.parse((await cli(['search', file, 'ΣΊΣΥΦΟΣ!', '--scan', '--json'])).stdout)).toMatchObject({
      method: 'scan',
      matches: [],
    })
    for (const [query, seq] of [
      ['σίσυφος', 0],
      ['STOP', 1],
    ] as const) {
      const r = await cli(['search', file, query, '--session', 'q', '--scan', '--json'])
      expect(
        (JSON.parse(r.stdout) as { matches: { seq: number }[] }).matches.map((m) => m.seq),
      ).toStrictEqual([seq])
    }
  })

  it('prefilters only with what LIKE folds, and matches where the text is', () => {
    expect(likePattern('σίσυφος')).toBe('%')
    expect(likePattern('She said "hello')).toBe('%hello%')
    expect(likePattern('50%_off')).toBe('%50\\%\\_off%')
    // k and s have non-ASCII case variants (the Kelvin sign, the long s).
    expect(likePattern('stop')).toBe('%top%')
    expect(findIgnoringCase('À L’ÉCOLE', 'l’école')).toStrictEqual({ at: 2, length: 7 })
    expect(findIgnoringCase('a.b', '.')).toStrictEqual({ at: 1, length: 1 })
    expect(findIgnoringCase('x-y', 'x-y')).toStrictEqual({ at: 0, length: 3 })
  })
})

describe('usage errors are one line', () => {
  it('with the way to help, and a JSON error with --json', async () => {
    for (const argv of [
      ['frobnicate'],
      ['sessions'],
      ['history', file, 'big', '--limit', 'ten'],
      ['sessions', file, '--bogus'],
      ['sessions', file, '--sot', 'id'],
      ['history', file, '-home-me-app/9334'],
    ]) {
      const r = await cli(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      const lines = r.stderr.trimEnd().split('\n')
      expect(lines, argv.join(' ')).toHaveLength(1)
      expect(lines[0]).toMatch(
        /^context-ledger: .+; see context-ledger --help, or context-ledger <command> --help$/,
      )
      expect(r.stdout).toBe('')
      const json = await cli([...argv, '--json'])
      expect(json.code).toBe(2)
      expect(JSON.parse(json.stdout)).toStrictEqual({
        error: { code: 'USAGE', message: lines[0]?.replace('context-ledger: ', '') },
      })
    }
  })
})

describe('a session id that starts with -', () => {
  it('is read as an option, and the error says to put it after --', async () => {
    const r = await cli(['window', file, '-home-me-app/9334'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      "unknown option '-home-me-app/9334' (a session id starting with '-' goes after '--': <command> <file> -- -home-me-app/9334)",
    )
    expect((await cli(['sessions', file, '--bogus'])).stderr).not.toContain("goes after '--'")
  })
})

describe('colour', () => {
  it('FORCE_COLOR=0 turns it off, even on a terminal', async () => {
    // eslint-disable-next-line no-control-regex
    const sgr = /\u001b\[/
    expect((await cli(['sessions', file], { tty: true })).stdout).toMatch(sgr)
    for (const off of ['0', 'false'])
      expect((await cli(['sessions', file], { tty: true, env: { FORCE_COLOR: off } })).stdout).not.toMatch(
        sgr,
      )
    expect((await cli(['sessions', file], { env: { FORCE_COLOR: '1' } })).stdout).toMatch(sgr)
  })
})

describe('history', () => {
  it('--json streams a page at a time, as JSON.stringify would write the whole document', async () => {
    const store = openContextStore(file, { readonly: true })
    const entries = store.history('big', { fromSeq: 7, limit: MESSAGES }).map((e) => ({
      seq: e.seq,
      trackingId: e.trackingId,
      role: e.message.role,
      inWindow: e.inWindow,
      pinned: e.pinned,
      tokens: e.tokens,
      createdAt: e.createdAt.toISOString(),
      repeatOf: null,
      late: false,
      message: e.message,
      windowMessage: null,
    }))
    const session = store.session('big')
    store.close()
    const expected = `${JSON.stringify(
      {
        file,
        sessionId: 'big',
        messageCount: session?.messageCount,
        boundary: session?.boundary,
        fromSeq: 7,
        limit: 100_000,
        entries,
      },
      null,
      2,
    )}\n`
    // A reader that is always behind: every write waits for 'drain'.
    const chunks: string[] = []
    const stdout = Object.assign(new PassThrough(), {
      write(chunk: string): boolean {
        chunks.push(chunk)
        setImmediate(() => stdout.emit('drain'))
        return false
      },
    })
    const stderr = { text: '', write: (s: string) => ((stderr.text += s), true) }
    const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {} }
    const code = await runCli(['history', file, 'big', '--from', '7', '--limit', '100000', '--json'], io)
    expect(code, stderr.text).toBe(0)
    expect(chunks.join('')).toBe(expected)
    expect(chunks.length).toBeGreaterThan(3)
    for (const [from, limit] of [
      [0, 0],
      [MESSAGES, 10],
      [0, 1],
      [0, 500],
      [0, 501],
    ] as const) {
      const r = await cli([
        'history',
        file,
        'big',
        '--from',
        String(from),
        '--limit',
        String(limit),
        '--json',
      ])
      const doc = JSON.parse(r.stdout) as { entries: { seq: number }[] }
      expect(doc.entries.map((e) => e.seq)).toStrictEqual(
        Array.from({ length: Math.max(0, Math.min(limit, MESSAGES - from)) }, (_, i) => from + i),
      )
      expect(r.stdout).toBe(`${JSON.stringify(doc, null, 2)}\n`)
    }
  })

  it('--limit 0 says it shows none', async () => {
    const r = await cli(['history', file, 'big', '--limit', '0'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(
      `big: ${MESSAGES.toLocaleString('en-US')} messages (boundary 0); --limit 0 shows none of them`,
    )
  })
})

describe('import into a file of an older schema', () => {
  it('says import refuses to upgrade it, and how to', async () => {
    const exported = (await cli(['export', file, 'q'])).stdout
    const old = dir.file('old.db')
    copyFileSync(FIXTURE, old)
    const r = await cli(['import', old], { stdin: exported })
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe(
      `context-ledger: ${old} uses ledger schema version 1, and import refuses to upgrade a file on the side (this context-ledger writes version ${SET_USER_VERSION.length}). Upgrade it first with: context-ledger upgrade ${old} (take a copy first with: context-ledger backup ${old} <copy>), or import into a new file`,
    )
  })
})
