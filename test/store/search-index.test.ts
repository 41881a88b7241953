/**
 * The full-text index (`search_index`) stays exactly what the view `search_text` says the archive holds,
 * through every write: appends (one, a batch — indexed at the next turn of the event loop —, several in
 * one transaction, one that fails), redactions,
 * prunes, summaries, a deleted session, an export imported again, and the migration that builds it for a
 * file from before it (the committed schema-0 fixture, and a generated big file that reports progress).
 * Real files; the comparison is token by token (`test/helpers/search-index.ts`).
 */
import { copyFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { openContextStore, PersistentConversationManager, type MessageData } from '../../src/index.js'
import { FILL_PROGRESS_FROM } from '../../src/db/search-fill.js'
import { SEARCH_INDEX_MIGRATION, SET_USER_VERSION } from '../../src/db/migrate.js'
import { buildRichLedger, cli } from '../cli/support.js'
import {
  compareIndexWithView,
  docsMatching,
  idleTurn,
  segmentCount,
  watermark,
} from '../helpers/search-index.js'
import { SEARCH_BATCH_ROWS } from '../../src/store/search-index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { WORKERS } from '../reliability/support.js'

const dir = useTempDir('context-ledger-search-')
const FIXTURE = join(WORKERS, '..', '..', 'fixtures', 'ledger-schema0.sqlite')

const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })

function expectInStep(db: Database.Database): number {
  const { extra, missing, matching } = compareIndexWithView(db)
  expect(extra).toStrictEqual([])
  expect(missing).toStrictEqual([])
  return matching
}

describe('the full-text index', () => {
  it('indexes every block kind the view names, and nothing of ids, signatures or media', () => {
    const store = dir.open()
    store.append('s', [
      {
        role: 'user',
        content: [{ text: 'replication lag' }, { image: { format: 'png', source: { bytes: 'aGVsbG8=' } } }],
      },
      {
        role: 'assistant',
        content: [
          { reasoning: { text: 'thinking about quorum', signature: 'sigxyz' } },
          {
            toolUse: { toolUseId: 'tooluseid1', name: 'run_sql', input: { sql: 'SELECT lag FROM replicas' } },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 'tooluseid1',
              status: 'success',
              content: [
                { text: 'lag is 40 ms' },
                { json: { replica: 'eu-west' } },
                { document: { name: 'runbook', format: 'txt', source: { text: 'failover steps' } } },
              ],
            },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            document: {
              name: 'handbook',
              format: 'txt',
              source: { content: [{ text: 'escalation ladder' }] },
            },
          },
        ],
      },
    ])
    const db = store.connection()
    expect(store.indexPending()).toBe(true)
    expect(expectInStep(db)).toBeGreaterThan(0)
    for (const word of [
      'replication',
      'quorum',
      'run_sql',
      'replicas',
      'lag',
      'eu',
      'failover',
      'runbook',
      'handbook',
      'escalation',
    ])
      expect(docsMatching(db, word), word).not.toStrictEqual([])
    for (const word of ['aGVsbG8', 'sigxyz', 'tooluseid1', 'png', 'success'])
      expect(docsMatching(db, word), word).toStrictEqual([])
  })

  it('indexes a batch of appended messages at the next turn of the event loop; a failed append leaves no entry', async () => {
    const store = dir.open()
    const db = store.connection()
    store.append('s', [user('alpha bravo'), assistant('charlie')])
    // Below a batch, the messages wait above the watermark, and a search reads them there.
    await idleTurn()
    expect(watermark(db)).toBe(0)
    expect(docsMatching(db, 'alpha')).toStrictEqual([])
    expect(store.search('alpha').map((h) => h.seq)).toStrictEqual([0])
    // The second message answers a call never made: the whole append is refused — its rows, and with
    // them any entry of the index, never committed.
    const batch = Array.from({ length: SEARCH_BATCH_ROWS }, (_, i) =>
      i % 2 === 0 ? user(`zulu ${i}`) : assistant(`ok ${i}`),
    )
    expect(() =>
      store.append('s', [
        ...batch,
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'nope', status: 'success', content: [{ text: 'x' }] } }],
        },
      ]),
    ).toThrow(/never made a tool call/)
    await idleTurn()
    expect(watermark(db)).toBe(0)
    expect(docsMatching(db, 'zulu')).toStrictEqual([])
    expect(store.search('zulu')).toStrictEqual([])
    expectInStep(db)
    // A batch's worth of waiting messages: the append commits them only; the pass at the next turn of
    // the event loop indexes all of them and moves the watermark.
    store.append('s', batch)
    expect(watermark(db)).toBe(0)
    expect(docsMatching(db, 'zulu')).toStrictEqual([])
    expect(store.search('zulu')).toHaveLength(SEARCH_BATCH_ROWS / 2)
    await idleTurn()
    expect(watermark(db)).toBe(SEARCH_BATCH_ROWS + 2)
    expect(docsMatching(db, 'alpha')).toHaveLength(1)
    expect(docsMatching(db, 'zulu')).toHaveLength(SEARCH_BATCH_ROWS / 2)
    expectInStep(db)
  })

  it('writes one segment per batch, however many appends a transaction holds, and close() indexes the rest', async () => {
    const store = dir.open()
    store.append('s', [user('first turn'), assistant('ok')])
    const db = store.connection()
    store.indexPending()
    const before = segmentCount(db)
    store.batch('s', () => {
      for (let i = 0; i < SEARCH_BATCH_ROWS / 2; i++) {
        store.append('s', user(`one ${i}`))
        store.append('s', assistant(`two ${i}`))
      }
      // A savepoint that fails inside the batch takes its rows, and only them, out of what is indexed.
      expect(() =>
        store.append('s', {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'no', status: 'success', content: [] } }],
        }),
      ).toThrow()
      store.append('s', user('three'))
    })
    expect(segmentCount(db)).toBe(before)
    await idleTurn()
    expect(segmentCount(db)).toBe(before + 1)
    for (const word of ['one', 'two', 'three']) expect(docsMatching(db, word).length, word).toBeGreaterThan(0)
    expectInStep(db)
    store.append('s', assistant('four'))
    await idleTurn()
    expect(docsMatching(db, 'four')).toStrictEqual([])
    store.close()
    const again = dir.open()
    expect(docsMatching(again.connection(), 'four')).toHaveLength(1)
    expectInStep(again.connection())
  })

  it('follows redactions, edits, summaries, prunes and a deleted session', async () => {
    const store = dir.open()
    await buildRichLedger(store)
    const db = store.connection()
    store.indexPending()
    expectInStep(db)
    // The redacted message's words are gone; the summaries' texts are found (as negative documents).
    expect(docsMatching(db, 'summary OR earlier').some((d) => d < 0)).toBe(true)
    const m = new PersistentConversationManager({ store, sessionId: 'support-42', windowSize: 8 })
    m.redact({ seq: 6 }, { actor: 'dpo' })
    expectInStep(db)
    store.prune({ sessionId: 'support-42', before: Date.now() + 1000, keepPinned: true })
    expectInStep(db)
    store.deleteSession('support-42')
    expectInStep(db)
    expect(docsMatching(db, 'replication')).toStrictEqual([])
    expect(docsMatching(db, 'hello')).toHaveLength(1)
  })

  it('indexes a session imported from an export', async () => {
    const source = dir.open('source.db')
    await buildRichLedger(source)
    source.close()
    const exported = await cli(['export', dir.file('source.db'), 'support-42'])
    expect(exported.code).toBe(0)
    const imported = await cli(['import', dir.file('target.db'), '--as', 'copy'], { stdin: exported.stdout })
    expect(imported.code).toBe(0)
    const target = dir.open('target.db')
    const db = target.connection()
    expect(watermark(db)).toBe(db.prepare<[], number>('SELECT max(id) FROM messages').pluck().get())
    expect(expectInStep(db)).toBeGreaterThan(0)
    expect(docsMatching(db, 'replication').length).toBeGreaterThan(0)
  })

  it('is built for a ledger of the first schema when it is migrated', () => {
    const path = dir.file('old.db')
    copyFileSync(FIXTURE, path)
    const store = dir.open('old.db')
    const db = store.connection()
    expect(expectInStep(db)).toBeGreaterThan(0)
    const messages = db.prepare<[], number>('SELECT count(*) FROM messages').pluck().get() ?? 0
    const docs = db.prepare<[], number>('SELECT count(*) FROM search_index_docsize').pluck().get() ?? 0
    expect(docs).toBe(messages)
  })

  it('is built in batches for a big file from before it, with progress on stderr', () => {
    const path = dir.file('big.db')
    const store = openContextStore(path)
    const m = new PersistentConversationManager({ store, sessionId: 'big', windowSize: 40 })
    const turns = Math.ceil(FILL_PROGRESS_FROM / 2) + 100
    for (let i = 0; i < turns; i += 1000)
      m.append(
        Array.from({ length: Math.min(1000, turns - i) }, (_, k) => [
          user(`question ${i + k}`),
          assistant(`answer ${i + k}`),
        ]).flat(),
      )
    // Take the file back to the schema before the index: what an older version left (undoing 0010's
    // branches and 0009's format columns first, then 0008).
    // (This connection's TEMP triggers that watch the tree for the lineage cache name the branch columns:
    // they go first, as they never exist on a connection that opened an old file.)
    const db = store.connection()
    db.exec(`DROP TRIGGER temp.context_ledger_tree_update; DROP TRIGGER temp.context_ledger_tree_insert;
      DROP TRIGGER temp.context_ledger_tree_delete;
      DROP TABLE branch_rows; DROP INDEX sessions_children;
      ALTER TABLE pin_events DROP COLUMN version; ALTER TABLE message_edits DROP COLUMN version;
      ALTER TABLE sessions DROP COLUMN parent; ALTER TABLE sessions DROP COLUMN fork_seq;
      ALTER TABLE sessions DROP COLUMN kind; ALTER TABLE sessions DROP COLUMN forked_at;
      ALTER TABLE sessions DROP COLUMN fork_actor; ALTER TABLE sessions DROP COLUMN fork_reason;
      ALTER TABLE sessions DROP COLUMN fork_version; ALTER TABLE sessions DROP COLUMN fork_tokens;
      ALTER TABLE sessions DROP COLUMN fork_trim_point; ALTER TABLE sessions DROP COLUMN fork_pair_start;
      ALTER TABLE sessions DROP COLUMN fork_summary; ALTER TABLE sessions DROP COLUMN fork_summary_ended_at;
      ALTER TABLE sessions DROP COLUMN fork_summary_end_reason;
      DROP TABLE search_index; DROP VIEW search_text; DROP INDEX summaries_search_doc;
      ALTER TABLE messages DROP COLUMN text; ALTER TABLE summaries DROP COLUMN text;
      ALTER TABLE sessions DROP COLUMN format;
      DROP TABLE search_state; DROP TABLE eviction_log;
      DELETE FROM __drizzle_migrations WHERE id IN (SELECT id FROM __drizzle_migrations ORDER BY id DESC LIMIT 3);
      PRAGMA user_version = 8;`)
    store.close()
    const lines: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk))
      return true
    })
    let reopened
    try {
      reopened = dir.open('big.db')
    } finally {
      spy.mockRestore()
    }
    expect(SEARCH_INDEX_MIGRATION).toBe(8)
    expect(lines[0]).toMatch(/indexing \d+ messages of .*big\.db for search/)
    const percents = lines.flatMap((l) => /: (\d+)%/.exec(l)?.[1] ?? []).map(Number)
    expect(percents.length).toBeGreaterThanOrEqual(3)
    expect(percents).toStrictEqual([...percents].sort((a, b) => a - b))
    expect(lines.at(-1)).toMatch(/done/)
    const rdb = reopened.connection()
    expect(rdb.pragma('user_version', { simple: true })).toBe(SET_USER_VERSION.length)
    expectInStep(rdb)
    expect(docsMatching(rdb, '"answer 1234"')).toHaveLength(1)
  })
})
