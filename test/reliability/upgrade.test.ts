/**
 * Upgrades: `test/fixtures/ledger-schema0.sqlite` was written by the first released schema (migration
 * 0000, commit 23785d0; `make-schema0-fixture.ts` says how) with tool calls, parallel calls, pins set on
 * the way in and through the API (one undone), and an applied window whose boundary moved and which
 * keeps rows before it. Opened by the current code, a copy is migrated to the current version and keeps
 * every message byte for byte, every pin with its log, the boundary, the kept rows — and shows exactly the
 * window recorded before the upgrade.
 */
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type StoredMessageData } from '../../src/index.js'
import { MIGRATIONS_FOLDER } from '../../src/db/open.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules } from '../helpers/window-rules.js'
import { fileHash, WORKERS } from './support.js'

const FIXTURES = join(WORKERS, '..', '..', 'fixtures')
const FIXTURE = join(FIXTURES, 'ledger-schema0.sqlite')

interface Expected {
  createdWith: string
  userVersion: number
  limits: { windowSize: number; protectedMessages: { first: number } }
  sessions: { id: string; messageCount: number; boundary: number; pinnedCount: number }[]
  keptSeqs: number[]
  windows: Record<string, StoredMessageData[]>
  history: Record<string, StoredMessageData[]>
  pinned: { sessionId: string; seq: number; actor: string; reason: string | null; inWindow: boolean }[]
  pinEvents: { seq: number; action: string; actor: string; reason: string | null }[]
}

const expected = JSON.parse(readFileSync(join(FIXTURES, 'ledger-schema0.expected.json'), 'utf8')) as Expected
const dir = useTempDir('context-ledger-rel-')
const current = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length

describe('upgrading a schema-0 ledger', () => {
  it('is a real schema-0 file', () => {
    // Inspect a copy: even a read-only connection leaves -wal/-shm files next to a WAL-mode database.
    const copy = dir.file('inspect.db')
    copyFileSync(FIXTURE, copy)
    const db = new Database(copy, { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    expect(expected.userVersion).toBe(1)
    const columns = (
      db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('messages') as string[]
    ).sort()
    expect(columns).not.toContain('window_body')
    db.close()
    expect(current).toBeGreaterThan(1)
  })

  it('migrates to the current schema and keeps messages, pins, boundary and window', () => {
    const path = dir.file('upgraded.db')
    const fixtureHash = fileHash(FIXTURE)
    copyFileSync(FIXTURE, path)
    const store = openContextStore(path)
    const db = store.connection()
    expect(db.pragma('user_version', { simple: true })).toBe(current)
    expect(db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(current)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    // A ledger keeps the page size it was made with: only new files get the smaller one.
    expect(db.pragma('page_size', { simple: true })).toBe(4096)

    // A file from before summaries shows none.
    expect(store.sessions().map((s) => s.summaryId)).toStrictEqual(expected.sessions.map(() => undefined))
    // Every session of a file from before formats holds Strands messages.
    expect(store.sessions().map((s) => s.format)).toStrictEqual(expected.sessions.map(() => 'strands'))
    // A file from before session metadata was written holds none.
    expect(store.sessions().map((s) => s.metadata)).toStrictEqual(expected.sessions.map(() => undefined))
    // A file from before branches holds roots only.
    expect(
      store.sessions().map(({ parentId, forkSeq, kind }) => ({ parentId, forkSeq, kind })),
    ).toStrictEqual(expected.sessions.map(() => ({ parentId: null, forkSeq: null, kind: 'root' })))
    expect(
      store
        .sessions()
        .map(
          ({
            createdAt: _c,
            updatedAt: _u,
            summaryId: _s,
            format: _f,
            metadata: _m,
            parentId: _p,
            forkSeq: _k,
            kind: _r,
            ...rest
          }) => rest,
        ),
    ).toStrictEqual(expected.sessions)
    expect(store.sessions().map((s) => store.summaries(s.id))).toStrictEqual(expected.sessions.map(() => []))
    for (const [sessionId, messages] of Object.entries(expected.history)) {
      const history = store.history(sessionId, { limit: 1000 })
      expect(history.map((e) => JSON.stringify(e.message))).toStrictEqual(
        messages.map((m) => JSON.stringify(m)),
      )
      expect(history.every((e) => e.windowMessage === undefined)).toBe(true)
    }
    for (const [sessionId, window] of Object.entries(expected.windows))
      expect(JSON.stringify(store.window(sessionId))).toBe(JSON.stringify(window))
    expect(
      db
        .prepare(
          "SELECT m.seq FROM messages m JOIN sessions s ON s.pk = m.session WHERE s.id = 'fixture-main' AND m.kept = 1 AND m.seq < s.boundary ORDER BY m.seq",
        )
        .pluck()
        .all(),
    ).toStrictEqual(expected.keptSeqs)
    expect(
      store.pinnedMessages().map((p) => ({
        sessionId: p.sessionId,
        seq: p.seq,
        actor: p.actor,
        reason: p.reason ?? null,
        inWindow: p.inWindow,
      })),
    ).toStrictEqual(expected.pinned)
    expect(
      store
        .pinEvents('fixture-main')
        .map((e) => ({ seq: e.seq, action: e.action, actor: e.actor, reason: e.reason ?? null })),
    ).toStrictEqual(expected.pinEvents)
    for (const sessionId of Object.keys(expected.windows))
      assertWindowRules(store, sessionId, expected.limits.protectedMessages)

    // The upgraded ledger is a working one: the conversation goes on under the same limits.
    const manager = new PersistentConversationManager({
      store,
      sessionId: 'fixture-main',
      ...expected.limits,
    })
    const boundary = store.session('fixture-main')?.boundary ?? 0
    manager.append([
      { role: 'user', content: [{ text: 'After the upgrade' }] },
      { role: 'assistant', content: [{ text: 'Still here.' }] },
    ])
    manager.applyWindow()
    const report = assertWindowRules(store, 'fixture-main', expected.limits.protectedMessages, {
      previousBoundary: boundary,
      appended: expected.history['fixture-main']?.map((m) => [m.trackingId, JSON.stringify(m)] as const),
    })
    expect(report.messageCount).toBe(30)
    store.close()

    // Reopening the upgraded file migrates nothing more; the fixture itself was never touched.
    const again = openContextStore(path)
    expect(again.connection().prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(
      current,
    )
    again.close()
    expect(fileHash(FIXTURE)).toBe(fixtureHash)
  })
})
