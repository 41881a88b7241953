/**
 * Worker of `cli-export-memory.test.ts`: builds a ledger with one session of N messages (~1 KB each),
 * then runs `context-ledger export` on it in this process into a slow reader, and prints one JSON line:
 * the most memory (heap and Buffers) the export held live at once beyond what the process held before it (after a full
 * garbage collection at each sample), and the bytes exported.
 *
 * Usage: `node cli-export.mjs <path> <messages>`.
 */
import { Writable } from 'node:stream'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { PassThrough } from 'node:stream'
import { finished } from 'node:stream/promises'
import { openContextStore, type MessageData } from '../../../src/index.js'
import { runCli } from '../../../src/cli/program.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const [path, countArg] = process.argv.slice(2)
if (path === undefined || countArg === undefined) throw new Error('usage: cli-export <path> <messages>')
const total = Number(countArg)

const store = openContextStore(path)
const filler = 'x'.repeat(1000)
for (let done = 0; done < total; done += 1000) {
  const batch: MessageData[] = []
  for (let i = done; i < Math.min(total, done + 1000); i++)
    batch.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ text: `message ${i} ${filler}` }] })
  store.append('s', batch)
}
store.close()

/** Memory held live: the JavaScript heap and what it keeps outside it (Buffers). */
function live(): number {
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

gc()
const baseline = live()
let peak = 0
let bytes = 0
let chunks = 0
/** A reader slower than the export: each chunk is taken on a later turn of the event loop. */
const stdout = new Writable({
  highWaterMark: 64 * 1024,
  write(chunk: Buffer | string, _encoding, done) {
    bytes += chunk.length
    if (++chunks % 2000 === 0) {
      gc()
      peak = Math.max(peak, live() - baseline)
    }
    setImmediate(done)
  },
})
const sink = Object.assign(stdout, { isTTY: false as const })
const stderr = { write: () => true }
const code = await runCli(['export', path, 's', '--no-progress'], {
  stdout: sink,
  stderr,
  stdin: new PassThrough(),
  env: {},
})
// What is still buffered for the reader when the export returns counts too.
gc()
peak = Math.max(peak, live() - baseline)
stdout.end()
await finished(stdout)
process.stdout.write(`${JSON.stringify({ code, peak, bytes })}\n`)
