/**
 * A CLI compaction as a ledger summary. `/compact` (or auto-compaction) writes a `system` entry with
 * `subtype: 'compact_boundary'` and then a `user` entry with `isCompactSummary: true` whose text is the
 * summary the model wrote; the CLI then resumes from the boundary on. Here the entries are stored as they
 * are, and what the ledger window shows before the boundary — before the first entry the compaction kept
 * verbatim (`compactMetadata.preservedSegment.headUuid`), when it names one — is folded into a ledger
 * summary with the compact summary's text: the summary stands for that exact seq range, the originals
 * stay in the archive, searchable. The adapter applies no other window limit (the CLI owns its context).
 *
 * Folding is idempotent: a batch sent again (after a crash between the append and the fold) folds what is
 * still before that point, and nothing once it is folded.
 */
import { isRecord } from '../../store/check-args.js'
import type { LedgerEntry } from '../../store/store-types.js'
import type { Summarizer } from '../../summaries/summarize.js'
import type { LedgerPort } from '../port.js'

/** Who the compaction summaries are recorded as written by. */
export const COMPACTION_MODEL = 'claude-compaction'

type Body = Record<string, unknown>

const bodyOf = (entry: LedgerEntry | undefined): Body => (isRecord(entry?.message) ? entry.message : {})

const isBoundary = (body: Body): boolean => body.type === 'system' && body.subtype === 'compact_boundary'

/** The summary's text: its string content, or its text blocks joined. */
function textOf(body: Body): string {
  const message = isRecord(body.message) ? body.message : {}
  const content = message.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((block: unknown) => (isRecord(block) && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text.length > 0)
    .join('\n\n')
}

/** Finds the row of an entry of the transcript by its uuid (a fork's inherited ones included). */
export type RowLookup = (uuid: string) => Promise<LedgerEntry | undefined>

/** What a fold reads: the session, and the rows of its transcript by uuid. */
interface FoldSource {
  readonly port: LedgerPort
  readonly lookup: RowLookup
}

/** The entry with this uuid: one of the batch, or a stored one. */
async function byUuid(
  source: FoldSource,
  entries: readonly LedgerEntry[],
  uuid: unknown,
): Promise<LedgerEntry | undefined> {
  if (typeof uuid !== 'string' || uuid.length === 0) return undefined
  return entries.find((e) => bodyOf(e).uuid === uuid) ?? (await source.lookup(uuid))
}

/** The boundary a compact summary follows: its parent, else the entry stored just before it. */
async function boundaryOf(
  source: FoldSource,
  entries: readonly LedgerEntry[],
  summary: LedgerEntry,
): Promise<LedgerEntry | undefined> {
  const parent = await byUuid(source, entries, bodyOf(summary).parentUuid)
  if (parent !== undefined && isBoundary(bodyOf(parent))) return parent
  if (summary.seq === 0) return undefined
  const [previous] = await source.port.history(summary.seq - 1, 1)
  return previous !== undefined && isBoundary(bodyOf(previous)) ? previous : undefined
}

/** The seq the fold stops before: the preserved segment's head, else the boundary. */
async function foldPoint(
  source: FoldSource,
  entries: readonly LedgerEntry[],
  boundary: LedgerEntry,
): Promise<number> {
  const meta = bodyOf(boundary).compactMetadata
  const segment = isRecord(meta) ? meta.preservedSegment : undefined
  const head = isRecord(segment) ? await byUuid(source, entries, segment.headUuid) : undefined
  return head !== undefined && head.seq < boundary.seq ? head.seq : boundary.seq
}

/**
 * Folds, for each compact summary among the entries an append returned (new or already stored), what
 * the window shows before its compaction's fold point into a ledger summary with its text.
 *
 * @param port - the session
 * @param entries - the entries the append returned, in order
 * @param lookup - finds a row of the transcript by uuid (default: the session's own tracking ids; a fork
 *   passes one that finds the entries it inherits)
 * @returns how many compactions folded something
 */
export async function foldCompactions(
  port: LedgerPort,
  entries: readonly LedgerEntry[],
  lookup: RowLookup = (uuid) => port.byTrackingId(uuid),
): Promise<number> {
  const source: FoldSource = { port, lookup }
  let folded = 0
  for (const entry of entries) {
    const body = bodyOf(entry)
    if (body.type !== 'user' || body.isCompactSummary !== true) continue
    const boundary = await boundaryOf(source, entries, entry)
    if (boundary === undefined) continue
    const text = textOf(body)
    const summarizer: Summarizer = () => ({
      text: text.length > 0 ? text : 'Earlier conversation compacted by Claude Code.',
      model: COMPACTION_MODEL,
    })
    const result = await port.summarize(summarizer, { before: await foldPoint(source, entries, boundary) })
    if (result.summary !== undefined) folded++
  }
  return folded
}
