/**
 * docs/schema.md stays true: every ```sql block runs against a real ledger file holding the things the
 * queries look for (evictions, pins across sessions, edits, redactions, failed and waiting tool calls) and
 * returns rows; the window and eviction queries agree with the store's own answer; and the column tables
 * list exactly the columns the migrations create.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PersistentConversationManager, type ContextStore } from '../../src/index.js'
import { tempStore } from '../helpers/temp-store.js'
import { codeBlocks, readRepoFile } from './markdown.js'

const doc = readRepoFile('docs/schema.md')
const queries = codeBlocks(doc, 'sql')
/** The session the queries name. */
const SESSION = 'support-42'

let store: ContextStore
let cleanup: () => void

/** Fills a ledger with two sessions, evictions, pins, edits, a redaction and tool calls in every state. */
function fill(s: ContextStore): void {
  const main = new PersistentConversationManager({ store: s, sessionId: SESSION, windowSize: 6 })
  main.append({ role: 'user', content: [{ text: 'Plan the migration of the orders database.' }] })
  main.append({ role: 'assistant', content: [{ text: 'First, a backup.' }] })
  main.pin({ seq: 0 }, { actor: 'agent', reason: 'the task' })
  for (let i = 0; i < 5; i++) {
    main.append([
      { role: 'user', content: [{ text: `How many orders failed on day ${i}?` }] },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: `t${i}`, name: 'run_sql', input: { day: i } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: `t${i}`, status: 'success', content: [{ text: String(i * 3) }] } },
        ],
      },
      { role: 'assistant', content: [{ text: `${i * 3} orders failed.` }] },
    ])
    main.applyWindow()
  }
  main.pin({ seq: 3 }, { reason: 'first answer' }) // an evicted message brought back
  main.unpin({ seq: 3 })
  main.applyWindow()
  main.edit(
    { seq: 1 },
    { role: 'assistant', content: [{ text: 'First, take a backup.' }] },
    { actor: 'support' },
  )
  main.redact({ seq: 2 }, { actor: 'dpo', reason: 'erasure request' })
  // A call the conversation moves on from (answered by a repair row, status error) and one still waiting.
  main.append({ role: 'assistant', content: [{ toolUse: { toolUseId: 'lost', name: 'fetch', input: {} } }] })
  main.append({ role: 'user', content: [{ text: 'Never mind, continue the migration.' }] })
  main.append({ role: 'assistant', content: [{ toolUse: { toolUseId: 'open', name: 'fetch', input: {} } }] })
  main.applyWindow()

  const other = new PersistentConversationManager({ store: s, sessionId: 'billing-7', windowSize: 40 })
  other.append({ role: 'user', content: [{ text: 'Always answer in French.' }] })
  other.pin({ seq: 0 }, { actor: 'user', reason: 'house rule' })
  other.append({ role: 'assistant', content: [{ text: 'D’accord.' }] })
}

beforeAll(() => {
  ;({ store, cleanup } = tempStore())
  fill(store)
  // Every message in the full-text index (appends index in batches), as after close().
  store.indexPending()
})

afterAll(() => {
  cleanup()
})

function run(sql: string): Record<string, unknown>[] {
  return store.connection().prepare(sql).all() as Record<string, unknown>[]
}

/** The one query whose leading comment is `comment`. */
function query(comment: string): string {
  const found = queries.filter((q) => q.trimStart().startsWith(`-- ${comment}\n`))
  expect(found, `docs/schema.md has one sql block starting "-- ${comment}"`).toHaveLength(1)
  return found[0] ?? ''
}

describe('docs/schema.md', () => {
  it('has queries', () => {
    expect(queries.length).toBeGreaterThanOrEqual(6)
  })

  it.each(queries.map((q) => [q.split('\n')[0] ?? '', q]))('%s: runs and returns rows', (_title, sql) => {
    expect(run(sql).length).toBeGreaterThan(0)
  })

  it('the window query returns what window() returns', () => {
    const rows = run(query('the window of a session'))
    const window = store.window(SESSION)
    expect(rows.map((r) => r.seq)).toEqual(
      window.map((m) => store.message(SESSION, { trackingId: m.trackingId }).seq),
    )
  })

  it('the evicted query returns the archive minus the window', () => {
    const rows = run(query('evicted messages of a session'))
    const evicted = store
      .history(SESSION, { limit: 1000 })
      .filter((e) => !e.inWindow)
      .map((e) => e.seq)
    expect(evicted.length).toBeGreaterThan(0)
    expect(rows.map((r) => r.seq)).toEqual(evicted)
    expect(rows.some((r) => r.unpinned_at !== null)).toBe(true)
  })

  it('the pinned query returns what pinnedMessages() returns, in every session', () => {
    const rows = run(query('pinned messages in every session'))
    const pinned = store.pinnedMessages()
    expect(rows.map((r) => [r.session, r.seq, r.actor, r.reason])).toEqual(
      pinned.map((p) => [p.sessionId, p.seq, p.actor, p.reason ?? null]),
    )
    expect(new Set(rows.map((r) => r.session)).size).toBe(2)
  })

  it('the size query agrees with sessions()', () => {
    const rows = run(query('size of every session'))
    for (const s of store.sessions()) {
      const row = rows.find((r) => r.session === s.id)
      expect(row).toMatchObject({
        messages: s.messageCount,
        window_messages: s.windowMessages,
        pinned: s.pinnedCount,
        total_tokens: s.totalTokens,
      })
    }
  })

  it('lists exactly the columns of every table', () => {
    const tables = store
      .connection()
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[]
    expect(tables.length).toBeGreaterThanOrEqual(6)
    for (const table of tables) {
      const actual = (
        store.connection().prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]
      ).sort()
      expect(documentedColumns(table), `columns of ${table} in docs/schema.md`).toEqual(actual)
    }
  })
})

/** The backticked names in the first column of the table under the heading "### `table`". */
function documentedColumns(table: string): string[] {
  const start = doc.indexOf(`### \`${table}\`\n`)
  if (start === -1) return []
  const next = doc.indexOf('\n#', start + 1)
  const section = doc.slice(start, next === -1 ? undefined : next)
  const names: string[] = []
  for (const line of section.split('\n')) {
    const cell = /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1]
    if (cell !== undefined) names.push(cell)
  }
  return names.sort()
}
