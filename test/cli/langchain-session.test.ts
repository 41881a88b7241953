/**
 * The CLI reads a `langchain` session: `history` and `window` print each message readably (text, calls
 * with their args, results with their output, a repair container as its results, a late result as the
 * text the window shows), `search` finds tool output and answers, `sessions` names the format, and
 * `check` passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildLangChainSession } from '../helpers/langchain-sessions.js'
import { cli } from './support.js'

let dir: TempDir
let path: string
beforeAll(async () => {
  dir = tempDir('lc-cli-')
  path = dir.file('ledger.db')
  const store = openContextStore(path)
  await buildLangChainSession(store, 'trip')
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

describe('the CLI on a langchain session', () => {
  it('prints history and window readably', async () => {
    const history = await cli(['history', path, 'trip', '--full', '--limit', '100'])
    expect(history.code, history.stderr).toBe(0)
    for (const text of [
      'question 5 about the weather in city 5',
      '→ weather({"city":"city 5a"})',
      '→ weather({"city":"city 5b"})',
      '← drizzle in city 5b',
      'answer 5: drizzle',
      '→ forecast({})',
      'never mind the drizzle',
      '← late drizzle',
    ])
      expect(history.stdout).toContain(text)
    expect(history.stdout).not.toContain('[no text]')
    expect(history.stdout).not.toContain('"data"')
    // The repair container reads as one error result per call it answers.
    expect(history.stdout.match(/Tool call interrupted[^\n]*\[error\]/g)).toHaveLength(2)
    const window = await cli(['window', path, 'trip'])
    expect(window.code, window.stderr).toBe(0)
    expect(window.stdout).toContain('They asked about drizzle in six cities.')
    expect(window.stdout).toContain('answer 5: drizzle')
    expect(window.stdout).toContain('[Late tool result] The call "lost1" to weather')
    expect(window.stdout).not.toContain('question 3')
  })

  it('searches tool output and answers, lists the session with its format, and checks it', async () => {
    for (const scan of [[], ['--scan']]) {
      const found = await cli(['search', path, 'drizzle', '--session', 'trip', '--json', ...scan])
      expect(found.code, found.stderr).toBe(0)
      const { matches } = JSON.parse(found.stdout) as { matches: { seq: number; snippet: string }[] }
      expect(matches.map((m) => m.seq)).toContain(28)
      for (const m of matches) expect(m.snippet).not.toContain('"tool_call_id"')
    }
    const sessions = await cli(['sessions', path, '--json'])
    expect(JSON.parse(sessions.stdout)).toMatchObject({ sessions: [{ id: 'trip', format: 'langchain' }] })
    expect((await cli(['sessions', path])).stdout).toMatch(/langchain\s+trip$/m)
    const checked = await cli(['check', path, '--session', 'trip'])
    expect(checked.code, checked.stdout + checked.stderr).toBe(0)
  })
})
