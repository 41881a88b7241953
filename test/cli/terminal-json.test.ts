/**
 * JSON that goes to a terminal — `export`'s lines and every `--json` document — carries every string
 * exactly and still never hands the terminal a control character: what JSON does not escape itself (DEL,
 * C1 controls such as U+009B CSI, bidirectional marks, overrides and isolates, the line and paragraph
 * separators) is written as a JSON escape (`\u009b`), which reads back as the same string. To a file or
 * a pipe the output is what it always was, byte for byte.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { jsonVisible } from '../../src/cli/format.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

/** Every code point a terminal acts on or reorders text by (line feeds aside: JSON's own layout). */
const UNSAFE = [
  ...Array.from({ length: 0x20 }, (_, c) => c).filter((c) => c !== 0x0a),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
].map((c) => String.fromCharCode(c))

// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

const E = '\u009b31m\u202eevil\u2066\u0085\u007f\u2028x\u001b[2J'

let dir: TempDir
let file: string

beforeAll(() => {
  dir = tempDir('context-ledger-terminal-json-')
  file = dir.file('agent.db')
  const store = openContextStore(file)
  store.append(`s${E}`, [
    { role: 'user', content: [{ text: `hello ${E}` }] },
    { role: 'assistant', content: [{ text: `ok ${E}` }] },
  ])
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

const id = `s${E}`

describe('JSON on a terminal', () => {
  it('export writes no raw control character to a terminal, and its lines read back exactly', async () => {
    const tty = await cli(['export', file, id], { tty: true })
    expect(tty.code, tty.stderr).toBe(0)
    expect(tty.stdout).not.toMatch(RAW)
    const piped = await cli(['export', file, id])
    expect(piped.stdout).toMatch(RAW)
    const parse = (text: string): unknown[] =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { exportedAt?: string })
        .map(({ exportedAt: _, ...line }) => line)
    expect(parse(tty.stdout)).toStrictEqual(parse(piped.stdout))
  })

  it('every --json document carries every string exactly without a raw control character', async () => {
    for (const argv of [
      ['sessions', file, '--json'],
      ['window', file, id, '--json', '--explain'],
      ['history', file, id, '--json'],
      ['pins', file, '--json'],
      ['search', file, 'hello', '--json'],
      ['window', file, `no${E}`, '--json'],
    ]) {
      const tty = await cli(argv, { tty: true })
      expect(tty.stdout, argv.join(' ')).not.toMatch(RAW)
      const piped = await cli(argv)
      expect(JSON.parse(tty.stdout), argv.join(' ')).toStrictEqual(JSON.parse(piped.stdout))
    }
  })

  it('jsonVisible: no printed line holds an unsafe code point, and it parses to the same value', () => {
    const text = fc.string({
      unit: fc.oneof(fc.constantFrom(...UNSAFE), fc.constantFrom('a', 'é', '"', '\\', '\n', '😀')),
    })
    fc.assert(
      fc.property(fc.array(text, { maxLength: 4 }), (strings) => {
        for (const indent of [undefined, 2]) {
          const json = JSON.stringify({ strings }, null, indent)
          const shown = jsonVisible(json)
          for (const line of shown.split('\n')) expect(line).not.toMatch(RAW)
          expect(JSON.parse(shown)).toStrictEqual({ strings })
        }
      }),
      { numRuns: 300 },
    )
  })

  it('export to a terminal: every line is free of unsafe code points, whatever the text', async () => {
    // Blank text (only spaces, U+2028, U+2029 …) is no text block append takes.
    const text = fc
      .string({
        unit: fc.oneof(fc.constantFrom(...UNSAFE), fc.constantFrom('a', ' ', 'é', '"')),
        minLength: 1,
      })
      .filter((t) => t.trim() !== '')
    let n = 0
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const path = dir.file(`p${++n}.db`)
        const store = openContextStore(path)
        store.append('p', [{ role: 'user', content: [{ text: t }] }])
        store.close()
        const r = await cli(['export', path, 'p'], { tty: true })
        expect(r.code, r.stderr).toBe(0)
        const lines = r.stdout.trimEnd().split('\n')
        for (const line of lines) expect(line).not.toMatch(RAW)
        const message = JSON.parse(lines[1] ?? '') as { message: { content: { text: string }[] } }
        expect(message.message.content[0]?.text).toBe(t)
      }),
      { numRuns: 25 },
    )
  })
})
