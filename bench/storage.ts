/**
 * What a ledger's page size costs on disk: 20,000 messages of three sizes stored in ledgers created with
 * 1, 2 and 4 KiB pages, and the file's size per message after a checkpoint, beside the JSON each message
 * is stored as. A row must fit in a page or spill into overflow pages, so small pages waste the most
 * space on mid-sized messages; what each page size costs in bytes written per turn is `bench/pages.ts`.
 * Sizes are deterministic (the same every run): nothing here is timed.
 *
 *   npx tsx bench/storage.ts            # 20,000 messages per ledger
 *   npx tsx bench/storage.ts --quick    # 4,000
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openContextStore, PersistentConversationManager, type MessageData } from '../src/index.js'
import type { PageSize } from '../src/db/open.js'
import { parseOptions } from './args.js'
import { TurnFactory } from './fixtures.js'
import { history } from './strands-turns.js'

const { quick } = parseOptions(process.argv.slice(2), { quick: { type: 'flag' } })
const MESSAGES = quick ? 4_000 : 20_000
const PAGE_SIZES: readonly PageSize[] = [1024, 2048, 4096]
const BATCH = 1_000

/** Text of `n` characters that varies with `i`, so pages do not hold runs of one repeated string. */
function text(n: number, i: number): string {
  return `${i} `.padEnd(n, 'abcdefghij klmnopqrstuvwxyz ')
}

/** Messages of 0.1 to 6 KB of text, spread evenly, alternating user and assistant. */
function varied(count: number): MessageData[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: [{ text: text(100 + ((i * 7919) % 6000), i) }],
  }))
}

/** The message mixes measured: a label and the first `count` messages of each. */
const MIXES: readonly { readonly label: string; readonly messages: (count: number) => MessageData[] }[] = [
  { label: 'the Strands benchmark turn (prompt, call, result, answer)', messages: history },
  {
    label: "`npm run bench`'s turns, ~500 B each",
    messages: (n) => new TurnFactory('s').turns(n / 4).flat(),
  },
  { label: '0.1–6 KB, spread evenly', messages: varied },
]

/** Stores `messages` in a new ledger with `pageSize`: the file's bytes and the JSON's bytes per message. */
function measure(
  dir: string,
  pageSize: PageSize,
  messages: readonly MessageData[],
): { file: number; json: number } {
  const path = join(dir, `${pageSize}-${String(Math.random()).slice(2)}.db`)
  const store = openContextStore(path, { pageSize })
  try {
    const manager = new PersistentConversationManager({ store, sessionId: 's', windowSize: 40 })
    for (let i = 0; i < messages.length; i += BATCH) manager.append(messages.slice(i, i + BATCH))
    manager.applyWindow()
    const json =
      store
        .connection()
        .prepare<[], number>('SELECT sum(length(CAST(body AS BLOB))) FROM messages')
        .pluck()
        .get() ?? 0
    store.connection().pragma('wal_checkpoint(TRUNCATE)')
    return { file: statSync(path).size / messages.length, json: json / messages.length }
  } finally {
    store.close()
  }
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'context-ledger-storage-'))
  const bytes = (n: number): string => `${Math.round(n).toLocaleString('en-US')} B`
  try {
    console.log(
      `Bytes on disk per message, ${MESSAGES.toLocaleString('en-US')} messages, file size after a checkpoint\n`,
    )
    console.log(
      `| messages | JSON per message | ${PAGE_SIZES.map((s) => `${s / 1024} KiB pages`).join(' | ')} |`,
    )
    console.log(`|---|---:|${PAGE_SIZES.map(() => '---:').join('|')}|`)
    for (const mix of MIXES) {
      const messages = mix.messages(MESSAGES)
      const cells = PAGE_SIZES.map((size) => measure(dir, size, messages))
      console.log(
        `| ${mix.label} | ${bytes(cells[0]?.json ?? 0)} | ${cells.map((c) => bytes(c.file)).join(' | ')} |`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main()
