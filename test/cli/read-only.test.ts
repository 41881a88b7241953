/**
 * Inspection never writes: every read command is run on a ledger whose write-ahead log holds committed
 * frames (a writer is still open and has not checkpointed), on a closed ledger, and on a ledger written
 * by the first schema, and the bytes of the file and of its log are hashed before and after. A reader
 * of a WAL database leaves an empty `-wal` and a `-shm` (SQLite's shared-memory index, no data) where
 * there were none: the log may appear empty, never with content.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { idleTurn } from '../helpers/search-index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'ledger-schema0.sqlite')
const dir = useTempDir('context-ledger-cli-ro-')

function hash(path: string): string {
  if (!existsSync(path)) return 'absent'
  const bytes = readFileSync(path)
  return bytes.length === 0 ? 'empty' : createHash('sha256').update(bytes).digest('hex')
}

/** The file's and its log's bytes; an absent log and an empty one are the same: no frames. */
function snapshot(path: string): { db: string; wal: string } {
  const wal = hash(`${path}-wal`)
  return { db: hash(path), wal: wal === 'absent' ? 'empty' : wal }
}

function readCommands(path: string, session: string): string[][] {
  return [
    ['sessions', path],
    ['sessions', path, '--json'],
    ['window', path, session],
    ['window', path, session, '--explain', '--json'],
    ['history', path, session, '--full'],
    ['pins', path],
    ['search', path, 'lag'],
    ['evictions', path, session],
    ['stats', path],
    ['check', path],
    ['export', path, session],
    ['backup', path, join(dirname(path), `copy-${Math.random().toString(36).slice(2)}.db`)],
    ['window', path, 'no-such-session'],
  ]
}

async function assertUnchanged(path: string, session: string, expectedCodes?: number[]): Promise<void> {
  for (const [i, argv] of readCommands(path, session).entries()) {
    const before = snapshot(path)
    const r = await cli(argv)
    if (expectedCodes !== undefined) expect(r.code, argv.join(' ')).toBe(expectedCodes[i])
    expect(snapshot(path), argv.join(' ')).toStrictEqual(before)
  }
}

describe('read commands never write', () => {
  it('leave the file and a write-ahead log full of frames byte for byte as they were', async () => {
    const path = dir.file('live.db')
    const writer = openContextStore(path)
    await buildRichLedger(writer)
    // The writer's own full-text index pass (scheduled by its last append) runs at the next turn of the
    // event loop: let it, so what changes afterwards could only be the read commands' doing.
    await idleTurn()
    expect(snapshot(path).wal).not.toBe('empty')
    await assertUnchanged(path, 'support-42', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2])
    writer.close()
  })

  it('leave a closed ledger as it was', async () => {
    const path = dir.file('closed.db')
    const store = openContextStore(path)
    await buildRichLedger(store)
    store.close()
    await assertUnchanged(path, 'support-42')
  })

  it('never upgrade a ledger of an older schema they look at', async () => {
    const path = dir.file('old.db')
    copyFileSync(FIXTURE, path)
    const before = hash(path)
    await assertUnchanged(path, 'fixture-main')
    expect(hash(path)).toBe(before)
  })
})
