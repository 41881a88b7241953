/**
 * What a ledger holds never drives the terminal that shows it: control characters in message text,
 * tool names and inputs, pin actors and reasons, summary text, model names and session ids (ESC and the
 * sequences it starts — OSC, CSI —, BEL, carriage returns, C1 controls, bidirectional overrides) are shown
 * visibly in everything printed for people, a session id with a newline stays on its row, and `--json`
 * keeps every string exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { visible } from '../../src/cli/format.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const E = '\u001b]0;PWNED\u0007\u001b[2J\u001b[31m\u009b31m\r\u202e'
const IDS = ['e', 'line\nbreak', `esc${E}id`, 'tab\there']

let dir: TempDir
let file: string

beforeAll(async () => {
  dir = tempDir('context-ledger-escapes-')
  file = dir.file(`agent\u0007.db`)
  const store = openContextStore(file)
  const m = new PersistentConversationManager({ store, sessionId: 'e', windowSize: 40 })
  m.append([
    { role: 'user', content: [{ text: `hello ${E}x\r\ny` }] },
    {
      role: 'assistant',
      content: [{ toolUse: { toolUseId: `t${E}`, name: `tool${E}`, input: { k: E } } }],
    },
    {
      role: 'user',
      content: [{ toolResult: { toolUseId: `t${E}`, status: 'success', content: [{ text: `res${E}` }] } }],
    },
    { role: 'assistant', content: [{ text: 'ok' }] },
  ])
  m.pin({ seq: 0 }, { actor: `act${E}`, reason: `why${E}` })
  m.pin({ seq: 3 }, { actor: 'user' })
  m.unpin({ seq: 3 }, { actor: `un${E}`, reason: `because${E}` })
  m.edit({ seq: 3 }, { role: 'assistant', content: [{ text: `edited${E}` }] }, { actor: `ed${E}` })
  await m.summarize(() => ({ text: `sum${E}`, model: `mod${E}` }), {
    preserveRecentMessages: 0,
    summaryRatio: 0.8,
  })
  for (const id of IDS.slice(1)) {
    const other = new PersistentConversationManager({ store, sessionId: id })
    other.append([
      { role: 'user', content: [{ text: `q ${E}` }] },
      { role: 'assistant', content: [{ text: 'a' }] },
    ])
  }
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

/** Every control character a terminal acts on, or reorders text by. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

function people(r: { code: number; stdout: string; stderr: string }, what: string): string {
  expect(r.code, `${what}: ${r.stderr}`).toBe(0)
  expect(r.stdout, what).not.toMatch(CONTROL)
  expect(r.stderr, what).not.toMatch(CONTROL)
  return r.stdout
}

describe('control characters from the ledger are shown, not obeyed', () => {
  it('in every command’s output for people, coloured or not', async () => {
    for (const env of [{}, { FORCE_COLOR: '1' }]) {
      const color = 'FORCE_COLOR' in env
      const runs: string[][] = [
        ['sessions', file],
        ['stats', file],
        ['window', file, 'e', '--explain'],
        ['window', file, 'e', '--full', '--explain'],
        ['history', file, 'e'],
        ['history', file, 'e', '--full'],
        ['pins', file],
        ['search', file, 'res'],
        ['search', file, 'nothing\u001b[2J'],
        ['evictions', file, 'e'],
        ['check', file],
      ]
      for (const id of IDS) runs.push(['history', file, id], ['window', file, id])
      for (const argv of runs) {
        const r = await cli(argv, { env })
        const text = people(
          color
            ? // Colour is ours: only SGR sequences, which the test takes out before looking.
              // eslint-disable-next-line no-control-regex
              { ...r, stdout: r.stdout.replace(/\u001b\[\d+m/g, '') }
            : r,
          `${argv.join(' ')}${color ? ' (colour)' : ''}`,
        )
        if (!color) expect(text, argv.join(' ')).not.toContain('\u001b')
      }
    }
  })

  it('shows each control character as a picture or an escape', async () => {
    expect(visible('a\u001b]0;x\u0007b\r\n\t\u007f\u009b\u202e')).toBe('a␛]0;x␇b␍␊␉␡\\u009b\\u202e')
    const win = people(await cli(['window', file, 'e']), 'window')
    expect(win).toContain('hello ␛]0;PWNED␇␛[2J␛[31m\\u009b31m')
    const pins = people(await cli(['pins', file]), 'pins')
    expect(pins).toContain('act␛]0;PWNED␇')
  })

  it('keeps a session id with a newline or a tab on its row', async () => {
    const out = people(await cli(['sessions', file]), 'sessions')
    const rows = out.trimEnd().split('\n')
    // A header, its rule, one row a session, and the total.
    expect(rows).toHaveLength(2 + IDS.length + 1)
    expect(out).toContain('line␊break')
    expect(out).toContain('tab␉here')
  })

  it('names an unknown session visibly in its one-line error', async () => {
    const r = await cli(['window', file, `no${E}\nsuch`])
    expect(r.code).toBe(2)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toMatch(CONTROL)
    expect(r.stderr).toContain('no␛]0;PWNED␇')
  })

  it('keeps --json exact', async () => {
    const s = JSON.parse((await cli(['sessions', file, '--json'])).stdout) as { sessions: { id: string }[] }
    expect(s.sessions.map((x) => x.id).sort()).toStrictEqual([...IDS].sort())
    const w = JSON.parse((await cli(['window', file, 'e', '--json', '--explain'])).stdout) as {
      messages: { message: { content: { text?: string }[] } }[]
    }
    expect(w.messages.some((m) => m.message.content[0]?.text === `hello ${E}x\r\ny`)).toBe(true)
    const p = JSON.parse((await cli(['pins', file, '--json'])).stdout) as { pins: { actor: string }[] }
    expect(p.pins[0]?.actor).toBe(`act${E}`)
  })
})
