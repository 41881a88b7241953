/**
 * Appends a batch of messages for the full-text index and ends without closing the store, so the index's
 * pass is still scheduled (unref'd) when the script's work is done: the process must exit on its own.
 * Prints `W <watermark> <messages>` after the append.
 *
 * Usage: idle-writer <db> <messages>
 */
import { openContextStore } from '../../../src/index.js'
import { report } from './worker-kit.js'

const [path, countArg] = process.argv.slice(2)
if (path === undefined || countArg === undefined) throw new Error('usage: idle-writer <db> <messages>')
const store = openContextStore(path)
store.append(
  'idle',
  Array.from({ length: Number(countArg) }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [{ text: `kilo ${i}` }],
  })),
)
const watermark = store.connection().prepare<[], number>('SELECT indexed_to FROM search_state').pluck().get()
report('W', watermark ?? -1, Number(countArg))
