/**
 * A transcript as `load` gives it, on any ledger session: a root's rows in order; a branch's parent's
 * transcript up to the fork point, then its own rows. A fork this adapter (or the CLI) made shows the
 * entries a copy would have held instead of the parent's (fork-derive.ts), with its own entries of the
 * sidecar around them: `head`, the copy, `tail`, then the rows it holds itself. A branch without a fork
 * record (a `store.fork` of a transcript, the abandoned part of a rewind) shows its parent's entries as
 * they are.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import type { SessionSummary } from '../../store/store-types.js'
import type { LedgerPort } from '../port.js'
import { deriveInherited, type ViewEntry } from './fork-derive.js'
import { readSidecar } from './sidecar.js'

/** Entries read from the ledger per page. */
const PAGE = 1000

/** Where a session sits in its tree. */
export interface BranchFacts {
  /** Its parent's ledger id, or null for a root. */
  readonly parentId: string | null
  /** The last seq it inherits (null for a root). */
  readonly forkSeq: number | null
}

/**
 * A session's place in its tree, from its summary.
 *
 * @param summary - `session(id)`
 * @returns its parent and fork point
 */
export function branchOf(summary: SessionSummary): BranchFacts {
  const { parentId, forkSeq } = summary
  return parentId === null || forkSeq === null ? { parentId: null, forkSeq: null } : { parentId, forkSeq }
}

/** What a view reads. */
export interface ViewSource {
  /** One session's summary, or undefined. */
  session(id: string): Promise<SessionSummary | undefined>
  /** The calls of a session by ledger id. */
  port(id: string): LedgerPort
}

/**
 * A source that reads each session's summary once (for one call that looks up many entries).
 *
 * @param source - the reads
 * @returns the same reads, summaries remembered
 */
export function memoSource(source: ViewSource): ViewSource {
  const summaries = new Map<string, Promise<SessionSummary | undefined>>()
  return {
    session: (id) => {
      let summary = summaries.get(id)
      if (summary === undefined) summaries.set(id, (summary = source.session(id)))
      return summary
    },
    port: (id) => source.port(id),
  }
}

/** Rows `from`..`to` (inclusive; to the end when undefined) of a session's conversation. */
async function rows(port: LedgerPort, from: number, to: number | undefined): Promise<ViewEntry[]> {
  const out: ViewEntry[] = []
  for (let at = from; to === undefined || at <= to;) {
    const limit = to === undefined ? PAGE : Math.min(PAGE, to - at + 1)
    const page = await port.history(at, limit)
    for (const e of page) out.push({ entry: e.message as unknown as SessionStoreEntry, seq: e.seq })
    if (page.length < limit) break
    at += page.length
  }
  return out
}

const meta = (entries: readonly SessionStoreEntry[]): ViewEntry[] =>
  entries.map((entry) => ({ entry, seq: undefined }))

/**
 * A session's transcript up to a seq of its conversation.
 *
 * @param source - the reads
 * @param id - the ledger session
 * @param upTo - the last seq (undefined: all of it)
 * @returns its entries with their seqs; `[]` for a session that does not exist
 */
export async function transcriptView(source: ViewSource, id: string, upTo?: number): Promise<ViewEntry[]> {
  const summary = await source.session(id)
  if (summary === undefined) return []
  const { parentId, forkSeq } = branchOf(summary)
  if (parentId === null || forkSeq === null) return rows(source.port(id), 0, upTo)
  const own = upTo !== undefined && upTo <= forkSeq ? [] : await rows(source.port(id), forkSeq + 1, upTo)
  const end = upTo === undefined ? forkSeq : Math.min(upTo, forkSeq)
  const sidecar = readSidecar(summary.metadata)
  const record = sidecar?.fork
  if (record === undefined) return [...(await transcriptView(source, parentId, end)), ...own]
  const given = (await transcriptView(source, parentId, forkSeq)).filter((v) => v.seq !== undefined)
  const derived = await deriveInherited(record, given, sidecar?.sessionId ?? '')
  const inherited = derived.filter((v) => v.seq !== undefined && v.seq <= end)
  const tail = record.kind === 'sdk' ? meta(record.tail) : []
  return [...meta(record.head), ...inherited, ...tail, ...own]
}
