/**
 * `export` then `import` of sessions of the AI SDK formats and the `langchain` format: the header names the format, the import
 * writes it on the session row and derives each body's searchable text with it (never from the file),
 * and the imported session reads as the original does — history, window, search, summaries, evictions,
 * `check`. A header naming no known format is refused with nothing written; an export of a Strands
 * session has no `session.format` and imports as Strands. The reading commands print a UI session's text.
 */
import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'
import { buildModelSession } from '../helpers/ai-sdk-sessions.js'
import { buildLangChainSession } from '../helpers/langchain-sessions.js'

let dir: TempDir
let source: string
/** The langchain session's own file: summary ids count per file, and the model session has one too. */
let langchainSource: string
const sourceOf = (sessionId: string): string => (sessionId === 'langchain' ? langchainSource : source)

/** One UI turn: a question, and an answer that called a tool and used its output. */
function uiTurn(i: number): unknown[] {
  return [
    { id: `u${i}`, role: 'user', parts: [{ type: 'text', text: `Where is the harbour of port ${i}?` }] },
    {
      id: `a${i}`,
      role: 'assistant',
      metadata: { step: i },
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-lookup',
          toolCallId: `l${i}`,
          state: 'output-available',
          input: { port: i },
          output: { pier: `pier ${i}` },
        },
        { type: 'text', text: `The harbour of port ${i} is by pier ${i}.`, state: 'done' },
      ],
    },
  ]
}

/** An ai-sdk/ui session with tool parts, a pin and evictions. */
function buildUiSession(store: ContextStore): void {
  const m = new PersistentConversationManager({ store, sessionId: 'ui', windowSize: 4, format: 'ai-sdk/ui' })
  for (let i = 0; i < 4; i++) {
    m.append(uiTurn(i) as never)
    m.applyWindow()
  }
  m.pin({ seq: 1 })
}

/** The rows of the columns the format adds, beside the bodies they are derived from. */
function textRows(path: string, sessionId: string): unknown {
  const db = new Database(path, { readonly: true })
  try {
    const pk = { id: sessionId }
    return {
      format: db.prepare('SELECT format FROM sessions WHERE id = @id').pluck().get(pk),
      messages: db
        .prepare(
          'SELECT seq, body, text FROM messages WHERE session = (SELECT pk FROM sessions WHERE id = @id) ORDER BY seq',
        )
        .all(pk),
      summaries: db
        .prepare(
          'SELECT uid, body, text FROM summaries WHERE session = (SELECT pk FROM sessions WHERE id = @id) ORDER BY id',
        )
        .all(pk),
    }
  } finally {
    db.close()
  }
}

/** What the API reads of a session, ids of the file left out. */
function reads(path: string, sessionId: string, query: string): unknown {
  const store = openContextStore(path, { readonly: true })
  try {
    const { sessionId: _, ...explained } = store.explainWindow(sessionId) ?? {}
    const { createdAt: _c, updatedAt: _u, ...session } = store.session(sessionId) ?? {}
    return {
      session,
      window: store.window(sessionId),
      history: store.history(sessionId, { limit: 1000 }).map(({ sessionId: _s, ...e }) => e),
      summaries: store.summaries(sessionId).map(({ sessionId: _s, id: _i, replaces: _r, ...s }) => s),
      explained: JSON.parse(JSON.stringify(explained)) as unknown,
      edits: store.edits(sessionId).map(({ sessionId: _s, ...e }) => e),
      pinEvents: store.pinEvents(sessionId).map(({ sessionId: _s, ...e }) => e),
      evictions: store
        .evictions(sessionId, { limit: 10_000 })
        .map(({ sessionId: _s, summaryId, ...e }) => ({ ...e, folded: summaryId !== undefined })),
      search: store
        .search(query, { sessionId, limit: 100, summaries: true })
        .map((h) => [h.seq, h.snippet, h.inWindow, h.role]),
    }
  } finally {
    store.close()
  }
}

/** The CLI's own reading of a session: what people see. */
async function printed(path: string, sessionId: string, query: string): Promise<string[]> {
  const runs = [
    ['history', path, sessionId, '--full'],
    ['history', path, sessionId, '--json'],
    ['window', path, sessionId],
    ['search', path, query, '--session', sessionId, '--json'],
    ['search', path, query, '--session', sessionId, '--scan', '--json'],
    ['evictions', path, sessionId, '--json'],
    ['pins', path, '--session', sessionId, '--json'],
    ['pins', path, '--session', sessionId],
  ]
  const out: string[] = []
  for (const argv of runs) {
    const r = await cli(argv)
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
    out.push(r.stdout.replaceAll(path, '<file>'))
  }
  return out
}

async function exportOf(sessionId: string): Promise<string> {
  const r = await cli(['export', sourceOf(sessionId), sessionId])
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

beforeAll(async () => {
  dir = tempDir('context-ledger-cli-formats-')
  source = dir.file('agent.db')
  const store = openContextStore(source)
  await buildModelSession(store)
  buildUiSession(store)
  new PersistentConversationManager({ store, sessionId: 'plain', windowSize: 8 }).append({
    role: 'user',
    content: [{ text: 'a Strands drizzle' }],
  })
  store.close()
  langchainSource = dir.file('langchain.db')
  const langchain = openContextStore(langchainSource)
  await buildLangChainSession(langchain)
  langchain.close()
})
afterAll(() => {
  dir.cleanup()
})

describe.each([
  ['model', 'ai-sdk/model', 'drizzle'],
  ['ui', 'ai-sdk/ui', 'harbour pier'],
  ['langchain', 'langchain', 'drizzle'],
])('export and import of the %s session', (sessionId, format, query) => {
  it('names the format in the header and restores the session as it was', async () => {
    const exported = await exportOf(sessionId)
    const header = JSON.parse(exported.split('\n')[0] ?? '{}') as { session: Record<string, unknown> }
    expect(header.session.format).toBe(format)
    // The export carries no text column: the import derives it.
    expect(exported).not.toMatch(/"text":null/)
    const target = dir.file(`${sessionId}-restored.db`)
    const r = await cli(['import', target, '--json'], { stdin: exported })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ sessionId, format })
    const restored = textRows(target, sessionId) as {
      format: string
      messages: { text: unknown }[]
      summaries: { text: unknown }[]
    }
    expect(restored).toStrictEqual(textRows(sourceOf(sessionId), sessionId))
    expect(restored.format).toBe(format)
    for (const row of [...restored.messages, ...restored.summaries]) expect(typeof row.text).toBe('string')
    expect(reads(target, sessionId, query)).toStrictEqual(reads(sourceOf(sessionId), sessionId, query))
    expect(await printed(target, sessionId, query)).toStrictEqual(
      await printed(sourceOf(sessionId), sessionId, query),
    )
    const checked = await cli(['check', target, '--session', sessionId])
    expect(checked.code, checked.stdout + checked.stderr).toBe(0)
    const { sessions } = JSON.parse((await cli(['sessions', target, '--json'])).stdout) as {
      sessions: { id: string; format: string }[]
    }
    expect(sessions).toMatchObject([{ id: sessionId, format }])
    const table = (await cli(['sessions', target])).stdout
    expect(table).toMatch(/\bformat\b/)
    expect(table).toMatch(new RegExp(`${format}\\s+${sessionId}$`, 'm'))
  })

  it('derives the text from the bodies, and validates every body as the format', async () => {
    const lines = (await exportOf(sessionId)).trimEnd().split('\n')
    // Another format's body in a message line: the shared checker refuses it as this format.
    const strands = JSON.stringify({ role: 'user', content: [{ text: 'a Strands body' }] })
    const at = lines.findIndex((l) => l.includes('"type":"message"'))
    const bad = lines.map((l, i) =>
      i === at ? l.replace(/"message":\{.*\},"windowMessage"/, `"message":${strands},"windowMessage"`) : l,
    )
    expect(bad[at]).toContain('a Strands body')
    const target = dir.file(`${sessionId}-bad.db`)
    const r = await cli(['import', target], { stdin: `${bad.join('\n')}\n` })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`line ${at + 1}: .*message`))
    expect(r.stderr).toContain('nothing was imported')
    expect(existsSync(target)).toBe(false)
  })
})

describe('the header', () => {
  it('refuses a format it does not know, naming the field, with nothing written', async () => {
    const lines = (await exportOf('model')).trimEnd().split('\n')
    const header = JSON.parse(lines[0] ?? '{}') as { session: Record<string, unknown> }
    header.session.format = 'crewai'
    const target = dir.file('unknown-format.db')
    const r = await cli(['import', target], {
      stdin: `${[JSON.stringify(header), ...lines.slice(1)].join('\n')}\n`,
    })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('line 1: not the header of a context-ledger export (session.format:')
    expect(r.stderr).toContain('nothing was imported')
    expect(existsSync(target)).toBe(false)
  })

  it('is unchanged for a Strands session: no session.format, imported as Strands with no text column', async () => {
    const exported = await exportOf('plain')
    const header = JSON.parse(exported.split('\n')[0] ?? '{}') as { session: Record<string, unknown> }
    expect('format' in header.session).toBe(false)
    const target = dir.file('plain.db')
    expect((await cli(['import', target], { stdin: exported })).code).toBe(0)
    expect(textRows(target, 'plain')).toStrictEqual(textRows(source, 'plain'))
    expect(textRows(target, 'plain')).toMatchObject({ format: null, messages: [{ text: null }] })
    expect(reads(target, 'plain', 'drizzle')).toStrictEqual(reads(source, 'plain', 'drizzle'))
    // Naming 'strands' is the same as leaving it out.
    header.session.format = 'strands'
    const named = [JSON.stringify(header), ...exported.trimEnd().split('\n').slice(1)].join('\n')
    const again = dir.file('plain-named.db')
    expect((await cli(['import', again], { stdin: `${named}\n` })).code).toBe(0)
    expect(textRows(again, 'plain')).toStrictEqual(textRows(source, 'plain'))
  })
})

describe('the reading commands on a UI session', () => {
  it('history --full, search and search --scan print its text, tool input and output', async () => {
    const full = await cli(['history', source, 'ui', '--full'])
    expect(full.code, full.stderr).toBe(0)
    expect(full.stdout).toContain('The harbour of port 3 is by pier 3.')
    expect(full.stdout).toContain('lookup')
    expect(full.stdout).toContain('pier 3')
    expect(full.stdout).not.toContain('"parts"')
    for (const scan of [[], ['--scan']]) {
      const found = await cli(['search', source, 'harbour', '--session', 'ui', ...scan])
      expect(found.code, found.stderr).toBe(0)
      expect(found.stdout).toContain('harbour of port 2')
      expect(found.stdout).not.toContain('"parts"')
      const json = JSON.parse(
        (await cli(['search', source, 'pier 1', '--session', 'ui', '--json', ...scan])).stdout,
      ) as { matches: { seq: number; role: string; snippet: string }[] }
      expect(json.matches.length).toBeGreaterThan(0)
      for (const m of json.matches) {
        expect(m.snippet.toLowerCase()).toContain('pier')
        expect(m.snippet).not.toContain('{"type"')
      }
    }
  })
})
