/**
 * The command line and a session's metadata (what an append's `sessionMetadata` stores): `check` accepts
 * it, `export` then `import` brings it back exactly, and `sessions` lists a session whose metadata is not
 * JSON (a hand-edited row): the store reads it as none, `check` reports it, and a fold refuses to overwrite it.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { assistant, user } from '../helpers/messages.js'
import { refusal } from '../helpers/refusal.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const SIDECAR = {
  claudeAgent: { projectKey: 'p', sessionId: 'x', summary: { mtime: 7, data: { title: 'ü' } } },
}

/** The session `with`'s metadata column as stored. */
function metadataText(path: string): unknown {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare("SELECT metadata FROM sessions WHERE id = 'with'").pluck().get()
  } finally {
    db.close()
  }
}

let dir: TempDir
let source: string
beforeAll(() => {
  dir = tempDir('context-ledger-cli-metadata-')
  source = dir.file('agent.db')
  const store = openContextStore(source)
  store.append('with', [user('q0'), assistant('a0')], { sessionMetadata: () => SIDECAR })
  store.append('without', [user('q0')])
  store.close()
})
afterAll(() => {
  dir.cleanup()
})

describe('a session with metadata on the command line', () => {
  it('passes check, and comes back exactly through export and import', async () => {
    expect((await cli(['check', source])).code).toBe(0)
    const exported = await cli(['export', source, 'with'])
    expect(exported.code, exported.stderr).toBe(0)
    const header = JSON.parse(exported.stdout.split('\n')[0] ?? '{}') as { session: { metadata: unknown } }
    expect(header.session.metadata).toStrictEqual(SIDECAR)
    const target = dir.file('restored.db')
    const imported = await cli(['import', target], { stdin: exported.stdout })
    expect(imported.code, imported.stderr).toBe(0)
    const store = openContextStore(target, { readonly: true })
    try {
      expect(store.session('with')?.metadata).toStrictEqual(SIDECAR)
      expect(metadataText(target)).toBe(metadataText(source))
    } finally {
      store.close()
    }
    expect((await cli(['check', target])).code).toBe(0)
  })

  it('sessions lists every session, metadata or not, as before', async () => {
    const r = await cli(['sessions', source, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const listed = JSON.parse(r.stdout) as { sessions: { id: string; messageCount: number }[] }
    expect(listed.sessions.map((s) => [s.id, s.messageCount])).toStrictEqual([
      ['with', 2],
      ['without', 1],
    ])
  })

  it('metadata that is not JSON: read as none, reported by check, refused by a fold', async () => {
    const broken = dir.file('broken.db')
    const store = openContextStore(broken)
    store.append('hand-edited', user('q0'))
    store.connection().prepare("UPDATE sessions SET metadata = '{not json' WHERE id = 'hand-edited'").run()
    try {
      // Read as none, so that nothing reading a session's sizes fails on it…
      expect(store.sessions().map((s) => [s.id, s.messageCount, s.metadata])).toStrictEqual([
        ['hand-edited', 1, undefined],
      ])
      expect(store.session('hand-edited')?.metadata).toBeUndefined()
      // …but a fold would overwrite what it cannot read: refused, nothing written.
      const fold = refusal(() => store.append('hand-edited', user('q1'), { sessionMetadata: () => ({}) }))
      expect(fold).toMatchObject({ code: 'CORRUPT_DATABASE', sessionId: 'hand-edited' })
      expect(store.messageCount('hand-edited')).toBe(1)
      expect(store.connection().prepare('SELECT metadata FROM sessions').pluck().get()).toBe('{not json')
      // Appends without a fold go on.
      expect(store.append('hand-edited', user('q1'))).toHaveLength(1)
    } finally {
      store.close()
    }
    const listed = await cli(['sessions', broken])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('hand-edited')
    const checked = await cli(['check', broken])
    expect(checked.code).not.toBe(0)
    expect(checked.stdout + checked.stderr).toContain('sessions.metadata is not JSON')
  })
})
