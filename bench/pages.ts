/**
 * Where the bytes of a Strands turn go: which B-tree each page the WAL receives belongs to. A real `Agent`
 * with context-ledger's manager (windowSize 40) runs the benchmark turn (prompt, tool call, tool result,
 * answer) over a history of 200, 2,000 and 10,000 messages. After a TRUNCATE checkpoint, `turns` turns run;
 * after each turn, the frames it added to the WAL are read (each frame's header names the page) and each
 * page is mapped to its table or index with SQLite's `dbstat` as it is after that turn (a page an FTS5
 * merge freed may hold another B-tree's data a turn later). Per turn it prints, for each B-tree, the frames the WAL received and the
 * distinct pages they were (what a checkpoint at the end writes back to the database file), and the
 * commits. Bytes per turn ≈ frames × (page size + 24) + distinct pages × page size.
 *
 *   npx tsx bench/pages.ts                   # 50 turns per history
 *   npx tsx bench/pages.ts --quick           # 20 turns, 200 and 2,000 messages only
 *   npx tsx bench/pages.ts --page-size 4096  # a ledger created with another page size
 *   npx tsx bench/pages.ts --per-message     # durability 'message': a transaction per message
 *   npx tsx bench/pages.ts --turns 800       # a longer run: the full-text index's merges come in
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent } from '@strands-agents/sdk'
import { openContextStore, PersistentConversationManager as LedgerManager } from '../src/index.js'
import { PAGE_SIZES, type PageSize } from '../src/db/open.js'
import { PersistentConversationManager } from '../src/adapters/strands/index.js'
import { ScriptedModel } from '../examples/strands-scripted-model.js'
import { parseOptions } from './args.js'
import { history, lookup, script } from './strands-turns.js'

const options = parseOptions(process.argv.slice(2), {
  quick: { type: 'flag' },
  'page-size': { type: 'integer', min: 512 },
  'per-message': { type: 'flag' },
  turns: { type: 'integer', min: 1 },
})
const quick = options.quick
const PAGE_SIZE: PageSize =
  PAGE_SIZES.find((size) => size === (options['page-size'] ?? 1024)) ??
  fail(`--page-size takes a power of two from 512 to 65536, got ${String(options['page-size'])}`)
const DURABILITY = options['per-message'] ? 'message' : 'invocation'
const HISTORIES = quick ? [200, 2_000] : [200, 2_000, 10_000]
const TURNS = options.turns ?? (quick ? 20 : 50)
const WINDOW = 40
const WAL_HEADER = 32
const FRAME_HEADER = 24

function fail(message: string): never {
  throw new Error(message)
}

/** One frame of the WAL: the page it holds, and whether it ends a commit. */
interface Frame {
  readonly page: number
  readonly commit: boolean
}

/** Reads the valid frames of a WAL file (those carrying the header's salts), from frame `from` on. */
function readWal(path: string, from = 0): { pageSize: number; frames: Frame[] } {
  const wal = readFileSync(path)
  const frames: Frame[] = []
  if (wal.length < WAL_HEADER) return { pageSize: 0, frames }
  const pageSize = wal.readUInt32BE(8)
  const salt1 = wal.readUInt32BE(16)
  const salt2 = wal.readUInt32BE(20)
  for (
    let at = WAL_HEADER + from * (FRAME_HEADER + pageSize);
    at + FRAME_HEADER + pageSize <= wal.length;
    at += FRAME_HEADER + pageSize
  ) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break
    frames.push({ page: wal.readUInt32BE(at), commit: wal.readUInt32BE(at + 4) !== 0 })
  }
  return { pageSize, frames }
}

/** One B-tree's share of a turn. */
interface Share {
  frames: number
  pages: number
}

async function measure(
  n: number,
): Promise<{ shares: Map<string, Share>; commits: number; pageSize: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'context-ledger-pages-'))
  const path = join(dir, 'ledger.db')
  const store = openContextStore(path, { pageSize: PAGE_SIZE })
  try {
    const core = new LedgerManager({ store, sessionId: 'bench', windowSize: WINDOW })
    core.append(history(n))
    core.applyWindow()
    const agent = new Agent({
      model: new ScriptedModel({ script }),
      tools: [lookup],
      conversationManager: new PersistentConversationManager({
        store,
        sessionId: 'bench',
        windowSize: WINDOW,
        durability: DURABILITY,
      }),
      printer: false,
    })
    for (let i = 0; i < 5; i++) await agent.invoke(`ask warmup ${i}`)
    const db = store.connection()
    db.pragma('wal_checkpoint(TRUNCATE)')
    const pagesOf = db.prepare<[], { name: string; pageno: number }>('SELECT name, pageno FROM dbstat')
    // A page freed by one B-tree may be reused by another (an FTS5 merge frees segment pages): each turn's
    // frames are attributed with the page map as it is right after that turn.
    const shares = new Map<string, Share>()
    const lastOwner = new Map<number, string>()
    let seen = 0
    let commits = 0
    let pageSize = 0
    for (let t = 0; t < TURNS; t++) {
      await agent.invoke(`ask topic ${t}`)
      const wal = readWal(`${path}-wal`, seen)
      pageSize = wal.pageSize
      seen += wal.frames.length
      const owner = new Map<number, string>()
      for (const row of pagesOf.all()) owner.set(row.pageno, row.name)
      for (const frame of wal.frames) {
        const name = owner.get(frame.page) ?? '(free or new page)'
        const share = shares.get(name) ?? { frames: 0, pages: 0 }
        share.frames += 1
        shares.set(name, share)
        lastOwner.set(frame.page, name)
        if (frame.commit) commits++
      }
    }
    // Distinct pages: what a checkpoint at the end writes back, each by the B-tree that wrote it last.
    for (const name of lastOwner.values()) {
      const share = shares.get(name) ?? { frames: 0, pages: 0 }
      share.pages += 1
      shares.set(name, share)
    }
    return { shares, commits, pageSize }
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  console.log(
    `Pages a Strands turn writes, by B-tree (${TURNS} turns per history, windowSize ${WINDOW}, ` +
      `durability '${DURABILITY}')\n`,
  )
  for (const n of HISTORIES) {
    const { shares, commits, pageSize } = await measure(n)
    const rows = [...shares].sort((a, b) => b[1].frames - a[1].frames)
    const frames = rows.reduce((sum, [, s]) => sum + s.frames, 0)
    const pages = rows.reduce((sum, [, s]) => sum + s.pages, 0)
    const perTurn = (x: number): string => (x / TURNS).toFixed(2)
    console.log(`history ${n.toLocaleString('en-US')} messages, page size ${pageSize}:`)
    console.log('| B-tree | WAL frames/turn | distinct pages/turn |')
    console.log('|---|---:|---:|')
    for (const [name, s] of rows) console.log(`| ${name} | ${perTurn(s.frames)} | ${perTurn(s.pages)} |`)
    console.log(`| all | ${perTurn(frames)} | ${perTurn(pages)} |`)
    const bytes = (frames * (pageSize + FRAME_HEADER) + pages * pageSize) / TURNS
    console.log(
      `commits/turn ${perTurn(commits)}; ≈ ${(bytes / 1024).toFixed(1)} KB/turn ` +
        `(WAL frames, then each distinct page once at checkpoint)\n`,
    )
  }
}

await main()
