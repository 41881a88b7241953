/**
 * Deleting a transcript that has forks. A fork shares its parent's rows, so deleting the parent is refused
 * while a live fork (or anything below one) remains; with `{ subtree: true }` the parent, every fork below
 * it and each of their subagent transcripts go. Transcripts a ledger rewind abandoned always go with it.
 * The SDK's `deleteSession()` and `SessionStore.delete(key)` carry no such option: the refusal reaches
 * the SDK's caller as the ledger's error; `subtree` is `LedgerSessionStore.delete`'s own second argument.
 */
import { ContextLedgerError } from '../../errors.js'
import type { BranchInfo } from '../../store/context-store.js'
import type { StoreCalls } from './store-calls.js'
import type { ListedTranscript, Transcript, Transcripts } from './transcripts.js'

/**
 * The sessions below a transcript's session in its tree.
 *
 * @param tree - the tree (root first, then depth first: a branch comes after its parent)
 * @param id - the session
 * @returns its descendants, in tree order
 */
function below(tree: readonly BranchInfo[], id: string): BranchInfo[] {
  const seen = new Set([id])
  const out: BranchInfo[] = []
  for (const branch of tree)
    if (branch.parentId !== null && seen.has(branch.parentId)) {
      seen.add(branch.sessionId)
      out.push(branch)
    }
  return out
}

/**
 * Refuses to delete a transcript whose rows a live fork shares.
 *
 * @param calls - the store-wide calls
 * @param transcript - the transcript (it exists)
 * @throws ContextLedgerError `BRANCH_HAS_CHILDREN` at `key`, naming its live forks; nothing is deleted
 */
export async function refuseLiveForks(calls: StoreCalls, transcript: Transcript): Promise<void> {
  const live = below(await calls.branches(transcript.id), transcript.id)
    .filter((b) => b.kind !== 'abandoned')
    .map((b) => b.sessionId)
  if (live.length > 0)
    throw new ContextLedgerError(
      'BRANCH_HAS_CHILDREN',
      `Transcript "${transcript.id}" has live forks that share its entries (${live.map((id) => JSON.stringify(id)).join(', ')}): delete them first, or pass { subtree: true } to LedgerSessionStore.delete; nothing was deleted`,
      { path: 'key', sessionId: transcript.id },
    )
}

/** What a subtree delete erases besides the transcript and its own subagent transcripts. */
export interface Subtree {
  /** The ledger sessions below the transcript's (forks, forks of forks, abandoned branches). */
  readonly below: readonly string[]
  /** The subagent transcripts of the forks among them. */
  readonly subagents: readonly ListedTranscript[]
}

/**
 * What lies below a transcript: every session of its tree under its own, and the subagent transcripts of
 * the forks among them (a fork's subagents are sessions of their own, outside the tree).
 *
 * @param calls - the store-wide calls
 * @param transcripts - the store's transcripts
 * @param transcript - the transcript (it exists)
 * @returns them
 */
export async function subtreeOf(
  calls: StoreCalls,
  transcripts: Transcripts,
  transcript: Transcript,
): Promise<Subtree> {
  const ids = below(await calls.branches(transcript.id), transcript.id).map((b) => b.sessionId)
  if (ids.length === 0) return { below: [], subagents: [] }
  const inTree = new Set(ids)
  const main = (k: { projectKey: string; sessionId: string }) => `${k.projectKey}\u0000${k.sessionId}`
  const forks = new Set(
    (await transcripts.list((k) => k.subpath === undefined))
      .filter((t) => inTree.has(t.id))
      .map((t) => main(t.sidecar)),
  )
  const subagents = await transcripts.list((k) => k.subpath !== undefined && forks.has(main(k)))
  return { below: ids, subagents }
}
