/**
 * `deleteSession` on PostgreSQL while another connection's append to the session commits. The delete
 * locks the session row and waits for the append (which updates that row first); the append's messages,
 * committed while it waited, must be deleted too. Deleting them in the same statement as the lock read
 * them in the snapshot taken before the wait, missed them, and then failed on the foreign key
 * (STORAGE_ERROR) — found by `LedgerSessionStore.delete` racing the SDK's appends
 * (test/adversarial/claude-agent-retention.test.ts).
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openPostgresContextStore } from '../../src/backends/postgres/index.js'
import { useDatabases } from './databases.js'

const { database, track } = useDatabases()
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

describe('deleteSession while an append commits', () => {
  it('deletes the rows the append committed while the delete waited for its lock', async () => {
    const url = await database()
    const store = track(await openPostgresContextStore({ connectionString: url, maxConnections: 2 }))
    await store.append('s', [
      { role: 'user', content: [{ text: 'one' }] },
      { role: 'assistant', content: [{ text: 'two' }] },
    ])
    // Another writer's append, held open: it has updated the session row and inserts a message.
    const writer = new pg.Client({ connectionString: url })
    await writer.connect()
    try {
      await writer.query('BEGIN')
      const [{ pk } = { pk: -1 }] = (
        await writer.query<{ pk: number }>(
          'UPDATE context_ledger.sessions SET revision = revision + 1 WHERE id = $1 RETURNING pk',
          ['s'],
        )
      ).rows
      const deleting = store.deleteSession('s')
      // The delete waits for the writer's row lock.
      for (;;) {
        const { rows } = await writer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
        if ((rows[0]?.n ?? 0) > 0) break
        await sleep(5)
      }
      await writer.query(
        `INSERT INTO context_ledger.messages (session, seq, uid, role, body, tokens, cum_tokens, plain_user,
           trim_point, pair_start, has_tool_use, has_tool_result, created_at)
         SELECT session, seq + 1, 'committed-while-waiting', role, body, tokens, cum_tokens, plain_user,
           trim_point, pair_start, has_tool_use, has_tool_result, created_at
         FROM context_ledger.messages WHERE session = $1 ORDER BY seq DESC LIMIT 1`,
        [pk],
      )
      await writer.query('COMMIT')
      expect(await deleting).toMatchObject({ deleted: true, messages: 3 })
      expect(await store.session('s')).toBeUndefined()
      const { rows } = await writer.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM context_ledger.messages WHERE session = $1',
        [pk],
      )
      expect(rows[0]?.n).toBe(0)
    } finally {
      await writer.end()
    }
  })
})
