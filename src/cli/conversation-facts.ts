/**
 * What the `evictions` report reads of a session's messages by seq — tokens, append times, kept rows,
 * redactions — for a trunk session by its own key, and for a branch through its lineage: each seq from
 * the session that owns it (its ancestors' rows up to each fork point, then its own), its kept marks on
 * inherited rows from its branch rows, and the redactions its edit log (its own and what it inherits)
 * records (docs/design.md, "Branches").
 */
import type Database from 'better-sqlite3'
import { BRANCH_STATEMENTS } from '../db/branch-statements.js'
import { prepareSpec } from '../db/typed-statement.js'
import { segmentOf, type Lineage } from '../store/branches/lineage.js'
import { branchView } from '../store/branch-recall.js'
import type { ContextStore } from '../store/context-store.js'
import { CLI_READS } from './statements.js'

/** A session's messages' facts by seq. */
export interface ConversationFacts {
  /** The tokens of the messages `[from, to)`. */
  tokensOf(from: number, to: number): number
  /** When the message at `seq` was appended. */
  createdAt(seq: number): number | undefined
  /** How many messages of `[from, to)` the edit log records a redaction of. */
  redactedIn(from: number, to: number): number
  /** The kept rows before the boundary, ascending. */
  readonly keptBefore: readonly number[]
}

/**
 * A session's facts, in the caller's read transaction.
 *
 * @param store - the store
 * @param session - the session's key, id, boundary and whether it is a branch
 * @returns its facts
 */
export function conversationFacts(
  store: ContextStore,
  session: { readonly pk: number; readonly id: string; readonly boundary: number; readonly branch: boolean },
): ConversationFacts {
  const db: Database.Database = store.connection()
  const cumAt = prepareSpec(db, CLI_READS.cumAt)
  const created = prepareSpec(db, CLI_READS.createdAt)
  const own = prepareSpec(db, CLI_READS.keptBefore).all(session.pk, session.boundary)
  if (!session.branch) {
    const redacted = prepareSpec(db, CLI_READS.redactedIn)
    return {
      tokensOf: (from, to) =>
        (cumAt.get(session.pk, to - 1) ?? 0) - (from > 0 ? (cumAt.get(session.pk, from - 1) ?? 0) : 0),
      createdAt: (seq) => created.get(session.pk, seq),
      redactedIn: (from, to) => redacted.get(session.pk, from, to) ?? 0,
      keptBefore: own,
    }
  }
  const lineage: Lineage = branchView(db, session).lineage
  const owner = (seq: number): number => segmentOf(lineage, seq)?.owner ?? session.pk
  // A running token sum is the conversation's: the owner's row at a seq holds the branch's sum there.
  const cum = (seq: number): number => (seq < 0 ? 0 : (cumAt.get(owner(seq), seq) ?? 0))
  const redactedSeqs = new Set(
    store
      .edits(session.id)
      .filter((e) => e.kind === 'redact')
      .map((e) => e.seq),
  )
  const inherited = prepareSpec(db, BRANCH_STATEMENTS.branchKeptSeqs).all(session.pk)
  return {
    tokensOf: (from, to) => cum(to - 1) - cum(from - 1),
    createdAt: (seq) => created.get(owner(seq), seq),
    redactedIn: (from, to) => [...redactedSeqs].filter((s) => s >= from && s < to).length,
    keptBefore: [...inherited.filter((s) => s < session.boundary), ...own].sort((a, b) => a - b),
  }
}
