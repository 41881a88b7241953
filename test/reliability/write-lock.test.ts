/**
 * SQLite's write lock held by another process: a call waits it out, and past its busy timeout fails typed
 * with nothing written. (PostgreSQL writers wait on the session's row instead: test/postgres/.)
 */
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { refusal } from '../helpers/refusal.js'
import { collect, useWorker, type WorkerExit } from './support.js'

const dir = useTempDir('context-ledger-lock-')
const launchHolder = useWorker('lock-holder')

/**
 * Starts a process that holds the file's write lock for `ms`, and resolves once it holds it.
 *
 * @returns the holder's exit (wrapped, so awaiting this does not wait for it), to await at the end
 */
async function holdLock(path: string, ms: number): Promise<{ exit: Promise<WorkerExit> }> {
  let onLocked: () => void = () => {}
  const locked = new Promise<void>((resolve) => {
    onLocked = resolve
  })
  const exit = collect(launchHolder([path, String(ms)]), (line) => {
    if (line === 'L') onLocked()
  })
  await Promise.race([locked, exit])
  return { exit }
}

describe('another process holding the write lock', () => {
  it('waits out another process’s write lock, and past the timeout fails typed with nothing written', async () => {
    const path = dir.file('locked.db')
    openContextStore(path).close()
    const { exit } = await holdLock(path, 1500)

    // No clock: the impatient call failing BUSY shows it gave up instead of waiting out the lock, and the lock
    // is still held right after it; the patient call that follows can only succeed by waiting for the release.
    const impatient = openContextStore(path, { busyTimeoutMs: 10 })
    const error = refusal(() => impatient.append('s', { role: 'user', content: [{ text: 'too early' }] }))
    expect(error.code).toBe('DATABASE_BUSY')
    expect(error.cause).toMatchObject({ code: 'SQLITE_BUSY' })
    expect(impatient.session('s')).toBeUndefined()
    expect(
      refusal(() => impatient.append('s', { role: 'user', content: [{ text: 'still early' }] })).code,
    ).toBe('DATABASE_BUSY')

    const patient = openContextStore(path)
    const [entry] = patient.append('s', { role: 'user', content: [{ text: 'after the lock' }] })
    expect(entry?.seq).toBe(0)
    expect((await exit).lines).toStrictEqual(['L', 'U'])
    impatient.close()
    patient.close()
  })

  it('the busy timeout bounds the whole call: no retry starts the wait over', async () => {
    const path = dir.file('deadline.db')
    openContextStore(path).close()
    // The lock is held far longer than the timeout: a call that started its wait over after the timeout
    // (once per retry) would outlast the holder and succeed instead of failing.
    const { exit } = await holdLock(path, 1500)

    const store = openContextStore(path, { busyTimeoutMs: 400 })
    const error = refusal(() =>
      store.append('s', { role: 'user', content: [{ text: 'waits at most 400 ms in all' }] }),
    )
    expect(error.code).toBe('DATABASE_BUSY')
    expect((await exit).lines).toStrictEqual(['L', 'U'])
    expect(store.session('s')).toBeUndefined()
    store.close()
  })
})
