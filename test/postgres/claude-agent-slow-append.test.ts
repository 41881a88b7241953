/**
 * The SDK's batcher gives up waiting on an `append` after 60 s (without retrying it) and sends its next
 * batch; the first may still land later. On PostgreSQL an append waits as long as another writer holds the
 * session's row: here another connection holds it while two batches are sent — as the SDK does, the
 * second without waiting for the first. Both land, in the order sent, once the row is free, with the
 * summary the fold of both.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { foldSessionSummary, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { openPostgresContextStore } from '../../src/backends/postgres/index.js'
import { LedgerSessionStore } from '../../src/adapters/claude-agent-sdk/index.js'
import { EntryMaker } from '../helpers/claude-format-entries.js'
import { useDatabases } from './databases.js'

const { database, track } = useDatabases()
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const KEY = { projectKey: '-srv-slow', sessionId: '9a7d4c1e-0000-4000-8000-00000000000e' }

describe('an append that lands after the SDK stopped waiting', () => {
  it('lands before the batch sent after it', async () => {
    const url = await database()
    const store = track(await openPostgresContextStore({ connectionString: url, maxConnections: 4 }))
    const sessions = new LedgerSessionStore({ store })
    const m = new EntryMaker('w')
    const json = (entries: unknown[]) => JSON.parse(JSON.stringify(entries)) as SessionStoreEntry[]
    const first = json([m.prompt('opening')])
    const late = json([m.prompt('sent first'), m.text('one', 'msg_1')])
    const next = json([m.prompt('sent second'), m.text('two', 'msg_2'), { type: 'cost-state', n: 2 }])
    await sessions.append(KEY, first)
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('SELECT pk FROM context_ledger.sessions WHERE id = $1 FOR UPDATE', [
        sessions.sessionIdOf(KEY),
      ])
      const landing = [sessions.append(KEY, late), sessions.append(KEY, next)]
      // The first waits for the row (the SDK would have given up on it by now).
      for (;;) {
        const { rows } = await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
        if ((rows[0]?.n ?? 0) > 0) break
        await sleep(5)
      }
      await holder.query('COMMIT')
      await Promise.all(landing)
    } finally {
      await holder.end()
    }
    const loaded = (await sessions.load(KEY)) ?? []
    expect(loaded).toStrictEqual([...first, ...late, ...next])
    const [summary] = await sessions.listSessionSummaries(KEY.projectKey)
    expect(summary?.data).toStrictEqual(foldSessionSummary(undefined, KEY, loaded, { mtime: 0 }).data)
  })
})
