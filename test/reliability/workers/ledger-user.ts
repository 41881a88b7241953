/**
 * Opens a ledger the way another user of the machine would, for the read-only tests: the parent starts
 * it under an unprivileged uid when the tests run as root, because root ignores file modes. Prints one
 * line, `ok <window length>` or `error <code>`, and exits 0 either way.
 *
 * Usage: ledger-user <db> <action>
 *   read-readonly  openContextStore(db, { readonly: true }), read the window
 *   read           openContextStore(db), read the window
 *   append         openContextStore(db), append one user message, read the window
 *   raw-read       read one row through better-sqlite3 directly, as a tool other than the store would
 */
import Database from 'better-sqlite3'
import { isContextLedgerError, openContextStore } from '../../../src/index.js'
import { report } from './worker-kit.js'

const [path, action] = process.argv.slice(2)
if (path === undefined || action === undefined) throw new Error('usage: ledger-user <db> <action>')

function run(): number {
  if (action === 'raw-read') {
    const db = new Database(path)
    const count = db.prepare('SELECT count(*) FROM messages').pluck().get() as number
    db.close()
    return count
  }
  const store = openContextStore(path as string, action === 'read-readonly' ? { readonly: true } : {})
  try {
    if (action === 'append')
      store.append('s', { role: 'user', content: [{ text: `written by uid ${process.getuid?.()}` }] })
    return store.window('s').length
  } finally {
    store.close()
  }
}

try {
  report('ok', run())
} catch (error) {
  if (!isContextLedgerError(error)) throw error
  report('error', error.code)
}
