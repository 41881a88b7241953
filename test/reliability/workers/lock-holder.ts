/**
 * Holds a ledger's write lock for a while, as a slow writer in another process would: opens the file
 * with the store (so it is migrated), takes `BEGIN IMMEDIATE`, prints `L`, sleeps, commits, prints `U`.
 *
 * Usage: lock-holder <db> <holdMs>
 */
import { openContextStore } from '../../../src/index.js'
import { report } from './worker-kit.js'

const [path, holdArg] = process.argv.slice(2)
if (path === undefined || holdArg === undefined) throw new Error('usage: lock-holder <db> <holdMs>')
const store = openContextStore(path)
const db = store.connection()
db.exec('BEGIN IMMEDIATE')
report('L')
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(holdArg))
db.exec('COMMIT')
report('U')
store.close()
