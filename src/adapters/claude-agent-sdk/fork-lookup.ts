/**
 * Finding the row behind an entry of a transcript's view by its `uuid`: its own rows by tracking id; an
 * entry it inherited through a fork by the fork's rule run backwards (fork-ids.ts: the parent's uuid of a
 * `forkSession` fork's entry is one XOR away; the CLI's resume copy keeps the parent's), then in the
 * parent, up to the fork point. O(depth) indexed lookups, nothing read in bulk.
 */
import type { LedgerEntry } from '../../store/store-types.js'
import { parentUuid } from './fork-ids.js'
import { branchOf, type ViewSource } from './fork-view.js'
import { readSidecar } from './sidecar.js'

/**
 * The row an entry of a transcript's view comes from.
 *
 * @param source - the reads
 * @param id - the ledger session
 * @param uuid - the entry's uuid in that session's view
 * @returns the row (its seq is the same in the session's conversation), or undefined when none is found
 */
export async function rowOfUuid(
  source: ViewSource,
  id: string,
  uuid: string,
): Promise<LedgerEntry | undefined> {
  const summary = await source.session(id)
  if (summary === undefined) return undefined
  const hit = await source.port(id).byTrackingId(uuid)
  const { parentId, forkSeq } = branchOf(summary)
  if (parentId === null || forkSeq === null) return hit
  if (hit !== undefined && hit.seq > forkSeq) return hit
  const sidecar = readSidecar(summary.metadata)
  const inParent = sidecar?.fork?.kind === 'sdk' ? parentUuid(uuid, sidecar.sessionId) : uuid
  if (inParent === undefined) return undefined
  const found = await rowOfUuid(source, parentId, inParent)
  return found !== undefined && found.seq <= forkSeq ? found : undefined
}
