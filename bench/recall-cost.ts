/**
 * What the full-text index (migration `0008_recall`) and an eviction log cost the write path, against the
 * two hard limits they must stay within (docs/benchmarks.md, rows a and f):
 *
 *   - bytes written per 4-message turn of a real Strands `Agent` (row f's method: `wchar` over the measured
 *     turns plus the WAL checkpoint), at 200, 2,000 and 10,000 messages of history: ≤ 25 KB;
 *   - `append()` of the row-a turn (4 messages of ~500 B), with the index against the same store without
 *     it (≤ 1.5×) and against the raw better-sqlite3 baseline (≤ 3×), interleaved call by call; medians
 *     as row a, and the means (an FTS5 merge lands on a few calls).
 *
 * Each variant sets the index up differently on a fresh ledger, through the store's connection only:
 *
 *   none        the view `search_text` replaced by an empty one: the per-transaction index statement runs
 *               and inserts nothing — the store without an index
 *   migrated    the index as the migration creates it (FTS5 defaults: automerge 4, crisismerge 16,
 *               columnsize 1, detail full)
 *   tuned       columnsize=0 (no %_docsize row per document; bm25 then re-tokenizes each hit), automerge=0
 *               with crisismerge=64 (merge 64 segments at once: fewer rewrites), secure_delete=FAST for
 *               the connection (freed pages are not zeroed)
 *   tuned-none  tuned with detail=none (no positions: no phrase or NEAR queries)
 *   …+log       the same plus an eviction log: one narrow row per cut that moves the boundary (a
 *               WITHOUT ROWID table keyed by session and boundary, written by a trigger in the cut's
 *               transaction); `+rowid-log`: the log as a rowid table without an index. Row a's appends
 *               never cut the window, so their times are given without a log
 *
 *   npx tsx bench/recall-cost.ts            # 100 turns per history, 7 runs of 400 appends
 *   npx tsx bench/recall-cost.ts --quick    # 20 turns, 200 and 2,000 messages, 3 runs
 *   npx tsx bench/recall-cost.ts --turns 600
 */
import { WAL_CHECKPOINT_BYTES } from '../src/db/open.js'
import { openContextStore, PersistentConversationManager, type ContextStore } from '../src/index.js'
import { parseOptions } from './args.js'
import { RawBaseline } from './baseline.js'
import { TurnFactory } from './fixtures.js'
import { median, Scratch, timeUs } from './harness.js'
import { runHistory, TURN_BYTES_TARGET } from './strands-variants.js'

const options = parseOptions(process.argv.slice(2), {
  quick: { type: 'flag' },
  turns: { type: 'integer', min: 1 },
  runs: { type: 'integer', min: 1 },
})
const TURNS = options.turns ?? (options.quick ? 20 : 100)
const RUNS = options.runs ?? (options.quick ? 3 : 7)
const HISTORIES = options.quick ? [200, 2_000] : [200, 2_000, 10_000]
const APPENDS = 400

/** The store without an index: the view it reads is empty. */
function withoutIndex(store: ContextStore): void {
  store.connection().exec(`DROP VIEW search_text;
    CREATE VIEW search_text (doc, session, text) AS SELECT 0, 0, '' WHERE 0;`)
}

function tuned(store: ContextStore): void {
  const db = store.connection()
  db.exec(`DROP TABLE search_index;
    CREATE VIRTUAL TABLE search_index USING fts5(text, content = 'search_text', content_rowid = 'doc',
      tokenize = 'porter unicode61 remove_diacritics 2', columnsize = 0);
    INSERT INTO search_index (search_index, rank) VALUES ('secure-delete', 1);
    INSERT INTO search_index (search_index, rank) VALUES ('automerge', 0);
    INSERT INTO search_index (search_index, rank) VALUES ('crisismerge', 64);`)
  db.pragma('secure_delete = FAST')
}

function tunedNoPositions(store: ContextStore): void {
  const db = store.connection()
  db.exec(`DROP TABLE search_index;
    CREATE VIRTUAL TABLE search_index USING fts5(text, content = 'search_text', content_rowid = 'doc',
      tokenize = 'porter unicode61 remove_diacritics 2', columnsize = 0, detail = none);
    INSERT INTO search_index (search_index, rank) VALUES ('secure-delete', 1);
    INSERT INTO search_index (search_index, rank) VALUES ('automerge', 0);
    INSERT INTO search_index (search_index, rank) VALUES ('crisismerge', 64);`)
  db.pragma('secure_delete = FAST')
}

/** One narrow row per cut that moves the boundary, in the cut's transaction. */
function evictionLog(store: ContextStore): void {
  store.connection().exec(`CREATE TABLE eviction_log (
      session INTEGER NOT NULL, to_boundary INTEGER NOT NULL, version INTEGER NOT NULL,
      from_boundary INTEGER NOT NULL, at INTEGER NOT NULL, cut TEXT NOT NULL, cause TEXT NOT NULL,
      window_size INTEGER, token_budget INTEGER, kept TEXT, released TEXT, summary INTEGER,
      PRIMARY KEY (session, to_boundary, version)) WITHOUT ROWID;
    CREATE TRIGGER eviction_log_cut AFTER UPDATE OF boundary ON sessions
      WHEN new.boundary > old.boundary BEGIN
        INSERT INTO eviction_log VALUES (new.pk, new.boundary, new.version, old.boundary,
          CAST(unixepoch('subsec') * 1000 AS INTEGER), 'trim-point', 'window-size', 40,
          NULL, NULL, NULL, NULL);
      END;`)
}

/** The same log as a rowid table without an index: appends at its right edge, but no seek by boundary. */
function rowidLog(store: ContextStore): void {
  store.connection().exec(`CREATE TABLE eviction_log (
      id INTEGER PRIMARY KEY, session INTEGER NOT NULL, from_boundary INTEGER NOT NULL,
      to_boundary INTEGER NOT NULL, at INTEGER NOT NULL, cut TEXT NOT NULL, cause TEXT NOT NULL);
    CREATE TRIGGER eviction_log_cut AFTER UPDATE OF boundary ON sessions
      WHEN new.boundary > old.boundary BEGIN
        INSERT INTO eviction_log (session, from_boundary, to_boundary, at, cut, cause) VALUES (new.pk,
          old.boundary, new.boundary, CAST(unixepoch('subsec') * 1000 AS INTEGER), 'trim-point', 'window-size');
      END;`)
}

const VARIANTS: readonly { name: string; prepare: (store: ContextStore) => void }[] = [
  { name: 'none', prepare: withoutIndex },
  {
    name: 'none+log',
    prepare: (s) => {
      withoutIndex(s)
      evictionLog(s)
    },
  },
  {
    name: 'none+rowid-log',
    prepare: (s) => {
      withoutIndex(s)
      rowidLog(s)
    },
  },
  { name: 'migrated', prepare: () => undefined },
  { name: 'migrated+log', prepare: evictionLog },
  { name: 'tuned-none', prepare: tunedNoPositions },
  { name: 'tuned', prepare: tuned },
  {
    name: 'tuned+log',
    prepare: (s) => {
      tuned(s)
      evictionLog(s)
    },
  },
  {
    name: 'tuned-none+log',
    prepare: (s) => {
      tunedNoPositions(s)
      evictionLog(s)
    },
  },
]

/** A store for row a's appends, set up as `prepare` says, with a history of 1,000 messages. */
function appendStore(
  scratch: Scratch,
  name: string,
  prepare: (store: ContextStore) => void,
): { append: (i: number) => void; turns: () => void; close: () => void } {
  const store = openContextStore(scratch.file(`${name}.db`))
  prepare(store)
  const manager = new PersistentConversationManager({ store, sessionId: 'a', windowSize: 40 })
  const factory = new TurnFactory(name, 1)
  manager.append(factory.turns(250))
  let batch = factory.turns(0)
  return {
    turns: () => {
      batch = Array.from({ length: APPENDS }, () => factory.turn()).flat()
    },
    append: (i) => manager.append(batch.slice(4 * i, 4 * i + 4)),
    close: () => {
      store.close()
    },
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length
}

/** Row a's figures for one variant: with it, without an index, raw; medians and means. */
function timeAppends(name: string, prepare: (store: ContextStore) => void): string {
  const scratch = new Scratch()
  try {
    const withIt = appendStore(scratch, `with-${name}`, prepare)
    const without = appendStore(scratch, `without-${name}`, withoutIndex)
    const raw = new RawBaseline(scratch.file('raw.db'), WAL_CHECKPOINT_BYTES)
    const rawTurns = new TurnFactory('raw', 1)
    raw.append(1, rawTurns.turns(250))
    const ratioWithout: number[] = []
    const ratioRaw: number[] = []
    const all: [number[], number[], number[]] = [[], [], []]
    for (let r = 0; r < RUNS; r++) {
      withIt.turns()
      without.turns()
      const rawBatch = Array.from({ length: APPENDS }, () => rawTurns.turn())
      const samples: [number[], number[], number[]] = [[], [], []]
      const ops = [
        (i: number) => {
          withIt.append(i)
        },
        (i: number) => {
          without.append(i)
        },
        (i: number) => {
          raw.append(1, rawBatch[i] ?? [])
        },
      ]
      for (let i = 0; i < APPENDS; i++)
        for (let k = 0; k < ops.length; k++) {
          const j = (i + k) % ops.length
          const op = ops[j] as (i: number) => void
          samples[j]?.push(
            timeUs(() => {
              op(i)
            }),
          )
        }
      ratioWithout.push(median(samples[0]) / median(samples[1]))
      ratioRaw.push(median(samples[0]) / median(samples[2]))
      samples.forEach((s, i) => all[i]?.push(...s))
    }
    withIt.close()
    without.close()
    raw.close()
    const [w, o, b] = all
    return `| ${name} | ${median(w).toFixed(0)} µs (mean ${mean(w).toFixed(0)}) | ${median(o).toFixed(0)} µs (mean ${mean(o).toFixed(0)}) | ${median(b).toFixed(0)} µs | ${median(ratioWithout).toFixed(2)}× (means ${(mean(w) / mean(o)).toFixed(2)}×) | ${median(ratioRaw).toFixed(2)}× |`
  } finally {
    scratch.dispose()
  }
}

async function main(): Promise<void> {
  console.log(`Bytes written per Strands turn (${TURNS} turns per history, row f's method):\n`)
  console.log(
    `| variant | ${HISTORIES.map((n) => `${n.toLocaleString('en-US')} msgs`).join(' | ')} | ≤ 25 KB |`,
  )
  console.log(`|---|${HISTORIES.map(() => '---:').join('|')}|---|`)
  for (const v of VARIANTS) {
    const cells: number[] = []
    for (const n of HISTORIES) cells.push((await runHistory(['ours'], n, TURNS, v.prepare)).ours.bytesPerTurn)
    const pass = cells.every((c) => c <= TURN_BYTES_TARGET) ? 'PASS' : 'MISS'
    console.log(`| ${v.name} | ${cells.map((c) => `${(c / 1024).toFixed(1)} KB`).join(' | ')} | ${pass} |`)
  }
  console.log(`\nappend() of one row-a turn (${RUNS} runs of ${APPENDS} appends, interleaved):\n`)
  console.log('| variant | with | without an index | raw | with ÷ without (≤ 1.5×) | with ÷ raw (≤ 3×) |')
  console.log('|---|---:|---:|---:|---:|---:|')
  // Row a's appends never cut the window: the eviction log does not change them.
  for (const v of VARIANTS.filter((x) => !x.name.startsWith('none') && !x.name.endsWith('+log')))
    console.log(timeAppends(v.name, v.prepare))
}

await main()
