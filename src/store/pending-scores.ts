/**
 * Scoring the messages above the full-text index's watermark (the pending rows)
 * as the index would score them once indexed: FTS5's bm25 (k1 = 1.2, b = 0.75) with the index's row
 * count and average length, the pending rows counted in. The pending rows are matched by a temporary
 * FTS5 table with the same tokenizer (so the set of hits is exactly FTS5's); only their scores are
 * computed here, for plain queries, whose phrases are known, from the temporary table's own records:
 * its row and token counts, each hit's length, and the positions of the query's terms alone (reading
 * every term of every pending row cost ~40 µs a row). A phrase's document count in the index is
 * read from its vocabulary: exact for a one-word phrase, the rarest word's count (an upper bound) for a
 * longer one. For raw FTS5 syntax the temporary table's own bm25 is used (its statistics are those of
 * the pending rows alone; docs/design.md, "Recall", says how that ranks).
 */
import type { InstanceRow, TermRow } from '../db/recall-statements.js'

const K1 = 1.2
const B = 0.75

/**
 * Reads an SQLite varint (as FTS5 stores its averages record).
 *
 * @param buf - the bytes
 * @param at - where the varint starts
 * @returns its value and the offset after it
 */
export function readVarint(buf: Uint8Array, at: number): { value: number; next: number } {
  let v = 0
  for (let i = 0; i < 8; i++) {
    const byte = buf[at + i]
    if (byte === undefined) return { value: v, next: at + i }
    v = v * 128 + (byte & 0x7f)
    if ((byte & 0x80) === 0) return { value: v, next: at + i + 1 }
  }
  return { value: v * 256 + (buf[at + 8] ?? 0), next: at + 9 }
}

/**
 * The index's row count and token total, from its averages record (zeros for an empty index).
 *
 * @param block - `search_index_data` row 1, or undefined
 * @returns rows and tokens
 */
export function indexAverages(block: Uint8Array | undefined): { rows: number; tokens: number } {
  if (block === undefined || block.length === 0) return { rows: 0, tokens: 0 }
  const rows = readVarint(block, 0)
  return { rows: rows.value, tokens: readVarint(block, rows.next).value }
}

/** Terms grouped by document, in position order. */
export function termsByDoc(rows: Iterable<TermRow>): Map<number, (string | undefined)[]> {
  const out = new Map<number, (string | undefined)[]>()
  for (const r of rows) {
    let terms = out.get(r.doc)
    if (terms === undefined) out.set(r.doc, (terms = []))
    terms[r.offset] = r.term
  }
  return out
}

/** Where one term occurs: its positions in each document that holds it. */
export type Occurrences = ReadonlyMap<number, ReadonlySet<number>>

/**
 * Groups a term's instances by document.
 *
 * @param rows - the term's instances (document, position)
 * @returns its positions by document
 */
export function occurrences(rows: Iterable<InstanceRow>): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>()
  for (const r of rows) {
    let at = out.get(r.doc)
    if (at === undefined) out.set(r.doc, (at = new Set()))
    at.add(r.offset)
  }
  return out
}

/**
 * How often a phrase occurs in each document: where its first term is at position p, its second at
 * p + 1, and so on.
 *
 * @param phrase - the phrase's terms
 * @param where - each term's occurrences
 * @returns the documents that hold the phrase, with its count in each
 */
export function phraseCounts(
  phrase: readonly string[],
  where: (term: string) => Occurrences,
): Map<number, number> {
  const out = new Map<number, number>()
  const [first, ...rest] = phrase.map(where)
  if (first === undefined) return out
  for (const [doc, starts] of first) {
    const others = rest.map((o) => o.get(doc))
    if (others.some((o) => o === undefined)) continue
    let n = 0
    for (const p of starts) if (others.every((o, k) => o?.has(p + k + 1) === true)) n++
    if (n > 0) out.set(doc, n)
  }
  return out
}

/** What scoring the pending rows needs. */
export interface PendingStats {
  /** The index's rows and tokens. */
  readonly index: { readonly rows: number; readonly tokens: number }
  /** The pending rows' rows and tokens. */
  readonly pending: { readonly rows: number; readonly tokens: number }
  /** The query's phrases, as terms. */
  readonly phrases: readonly (readonly string[])[]
  /** Per phrase, the pending documents that hold it and how often (see {@link phraseCounts}). */
  readonly counts: readonly ReadonlyMap<number, number>[]
  /** A pending document's length in tokens. */
  readonly docLength: (doc: number) => number
  /** How many documents of the index hold a term. */
  readonly termDocs: (term: string) => number
}

/**
 * bm25 scores of pending documents, as FTS5 would give them with the pending rows indexed.
 *
 * @param stats - the statistics
 * @param docs - the documents to score (they matched the query)
 * @returns each document's score (negative; lower is better)
 */
export function pendingScores(stats: PendingStats, docs: readonly number[]): Map<number, number> {
  const n = stats.index.rows + stats.pending.rows
  const avgdl = n === 0 ? 1 : (stats.index.tokens + stats.pending.tokens) / n
  const idf = stats.phrases.map((phrase, i) => {
    let hits = phrase.length === 0 ? 0 : Math.min(...phrase.map((t) => stats.termDocs(t)))
    hits += stats.counts[i]?.size ?? 0
    const v = Math.log((n - hits + 0.5) / (hits + 0.5))
    return v <= 0 ? 1e-6 : v
  })
  const out = new Map<number, number>()
  for (const doc of docs) {
    const dl = stats.docLength(doc)
    let score = 0
    stats.phrases.forEach((_, i) => {
      const tf = stats.counts[i]?.get(doc) ?? 0
      score += (idf[i] ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avgdl)))
    })
    out.set(doc, -score)
  }
  return out
}
