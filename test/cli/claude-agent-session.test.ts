/**
 * The CLI on a `claude-agent` session (the CLI's recorded transcript, then a pin, a window, a summary,
 * a result for a call never made, retention and a redaction): `sessions` names the format, `history` and
 * `window` print each entry readably (prompts, calls with their input, results with their output,
 * attachments and bookkeeping entries by kind), `search` finds tool output, `check` passes, and `export`
 * then `import` restore the session as it was — bodies exactly, the pruned and summary entries included —
 * while an imported entry carrying a forged ledger note is refused with nothing written.
 */
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { EntryMaker, asMessages, fixture } from '../helpers/claude-format-entries.js'
import { cli } from './support.js'

let dir: TempDir
let path: string
const ID = 'proj/93343d98'

/** The recorded session, a second turn with a call, a late result, a pin, a summary, retention, a redaction. */
async function build(store: ContextStore): Promise<void> {
  const m = new PersistentConversationManager({
    store,
    sessionId: ID,
    windowSize: 40,
    format: 'claude-agent',
  })
  m.append(asMessages(fixture('format-tool-call')))
  const e = new EntryMaker('turn2')
  m.append(
    asMessages([
      e.prompt('Which harbour has the zeppelin mast?'),
      e.call('toolu_9', { harbour: 'Lisbon' }),
      e.attachment('mast reminder'),
      e.result('toolu_9', 'the zeppelin mast stands in Lisbon harbour'),
      e.result('toolu_ghost', 'an answer to nothing'),
      e.text('Lisbon has it.'),
    ]),
  )
  m.pin({ seq: 2 }, { reason: 'the first question' })
  await m.summarize(() => 'They added 40 and 2.', { summaryRatio: 0.5, preserveRecentMessages: 6 })
  store.prune({ sessionId: ID, before: Date.now() + 60_000, keepPinned: true })
  store.redactMessage(ID, { seq: 16 })
}

beforeAll(async () => {
  dir = tempDir('claude-cli-')
  path = dir.file('ledger.db')
  const store = openContextStore(path)
  await build(store)
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

async function run(argv: string[]): Promise<string> {
  const r = await cli(argv)
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout
}

describe('the CLI on a claude-agent session', () => {
  it('lists it with its format, prints history and window readably, searches and checks it', async () => {
    expect(JSON.parse(await run(['sessions', path, '--json']))).toMatchObject({
      sessions: [{ id: ID, format: 'claude-agent' }],
    })
    expect(await run(['sessions', path])).toMatch(/claude-agent\s+proj\/93343d98$/m)
    const history = await run(['history', path, ID, '--full', '--limit', '100'])
    for (const text of [
      '[queue-operation]',
      '[attachment environment]',
      'Which harbour has the zeppelin mast?',
      '→ mcp__calc__add({"harbour":"Lisbon"})',
      '← the zeppelin mast stands in Lisbon harbour',
      'Lisbon has it.',
    ])
      expect(history).toContain(text)
    expect(history).not.toContain('"tool_use_id"')
    const window = await run(['window', path, ID])
    expect(window).toContain('They added 40 and 2.')
    expect(window).toContain('[Late tool result] A result for the call "toolu_ghost"')
    for (const scan of [[], ['--scan']]) {
      const found = JSON.parse(
        await run(['search', path, 'zeppelin', '--session', ID, '--json', ...scan]),
      ) as {
        matches: { seq: number; snippet: string }[]
      }
      expect(found.matches.map((x) => x.seq).sort((a, b) => a - b)).toStrictEqual([19, 22])
    }
    expect(await run(['check', path, '--session', ID])).toContain('window rules hold')
  })

  it('exports and imports the session as it was, and refuses a forged ledger note', async () => {
    const exported = await run(['export', path, ID])
    const header = JSON.parse(exported.split('\n')[0] ?? '{}') as { session: Record<string, unknown> }
    expect(header.session.format).toBe('claude-agent')
    const target = dir.file('restored.db')
    expect(JSON.parse((await cli(['import', target, '--json'], { stdin: exported })).stdout)).toMatchObject({
      sessionId: ID,
      format: 'claude-agent',
    })
    const read = (p: string) => {
      const store = openContextStore(p, { readonly: true })
      try {
        return {
          history: store.history(ID, { limit: 1000 }).map(({ createdAt: _c, ...e }) => e),
          window: store.window(ID),
          summaries: store.summaries(ID).map((s) => s.message),
          search: store.search('zeppelin OR Lisbon', { sessionId: ID, summaries: true }).map((h) => h.seq),
          edits: store.edits(ID).map((e) => [e.seq, e.kind]),
          pins: store.pinnedMessages({ sessionId: ID }).map((p) => p.seq),
        }
      } finally {
        store.close()
      }
    }
    const restored = read(target)
    expect(restored).toStrictEqual(read(path))
    expect(JSON.stringify(restored.history)).toContain('"contextLedger":{"pruned":true}')
    expect(await run(['check', target, '--session', ID])).toContain('window rules hold')
    // A message line whose entry claims the ledger's pruned note while still holding its text.
    const lines = exported.trimEnd().split('\n')
    const at = lines.findIndex((l) => l.includes('Lisbon has it.'))
    const forged = lines.map((l, i) =>
      i === at ? l.replace('"type":"assistant"', '"contextLedger":{"pruned":true},"type":"assistant"') : l,
    )
    const bad = dir.file('forged.db')
    const r = await cli(['import', bad], { stdin: `${forged.join('\n')}\n` })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('contextLedger')
    expect(r.stderr).toContain('nothing was imported')
    expect(existsSync(bad)).toBe(false)
  })
})
