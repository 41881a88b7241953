/**
 * The tree of branches a file holds, checked (docs/design.md, "Branches"): what ties each session to its
 * parent, before any session's own rules run — they read a branch through its parent chain, which must
 * lead to a root:
 *
 * - a branch's parent exists, and the parent chain ends at a root (no cycle);
 * - `kind` is `root` exactly for a session without a parent; a branch has its fork columns (`fork_seq`,
 *   `forked_at`, `fork_version`, `fork_tokens`), a root none of them;
 * - the fork point is a seq of the parent's conversation, and the branch is in its root's message format;
 * - a root holds no `branch_rows` (its window state is on its own rows).
 *
 * A session whose chain is broken (a missing parent, a cycle) is named in `broken`: its own rules are not
 * checked (its conversation is undefined), the problem here says why.
 */
import type Database from 'better-sqlite3'
import { prepareSpec, rows } from '../db/typed-statement.js'

/** A session's row as the tree's rules read it. */
export interface TreeSessionRow {
  pk: number
  id: string
  parent: number | null
  fork_seq: number | null
  kind: string
  format: string | null
  forked_at: number | null
  fork_version: number | null
  fork_tokens: number | null
  /** Its newest own seq, or null without own rows. */
  last_seq: number | null
  /** How many branch rows it holds. */
  branch_rows: number
}

/** The statements, by name. */
export const TREE_READS = {
  // Every session with its newest own seq (one seek each) and whether it holds branch rows.
  sessions: rows<[], TreeSessionRow>(
    `SELECT s.pk, s.id, s.parent, s.fork_seq, s.kind, s.format, s.forked_at, s.fork_version, s.fork_tokens,
      (SELECT seq FROM messages WHERE session = s.pk ORDER BY seq DESC LIMIT 1) AS last_seq,
      (SELECT count(*) FROM branch_rows WHERE session = s.pk) AS branch_rows
    FROM sessions s ORDER BY s.pk`,
    {
      pk: true,
      id: true,
      parent: true,
      fork_seq: true,
      kind: true,
      format: true,
      forked_at: true,
      fork_version: true,
      fork_tokens: true,
      last_seq: true,
      branch_rows: true,
    },
  ),
}

/** One problem of the tree. */
export interface TreeProblem {
  /** The session at fault. */
  readonly sessionId: string
  /** The rule. */
  readonly rule: string
  /** What was seen. */
  readonly detail: string
}

/** What {@link checkTree} found. */
export interface TreeCheck {
  readonly problems: TreeProblem[]
  /** Sessions whose parent chain does not lead to a root: their own rules cannot be checked. */
  readonly broken: ReadonlySet<string>
}

/** A session's conversation length: its newest own seq + 1, or its fork point + 1 without own rows. */
function lengthOf(s: TreeSessionRow): number {
  if (s.last_seq !== null) return s.last_seq + 1
  return s.fork_seq === null ? 0 : s.fork_seq + 1
}

/**
 * Checks the tree of every session of the file, in the caller's read transaction.
 *
 * @param db - the connection
 * @returns the problems, and the sessions whose chain is broken
 */
export function checkTree(db: Database.Database): TreeCheck {
  const all = prepareSpec(db, TREE_READS.sessions).all()
  const byPk = new Map(all.map((s) => [s.pk, s]))
  const problems: TreeProblem[] = []
  const broken = new Set<string>()
  const fail = (s: TreeSessionRow, rule: string, detail: string): void => {
    problems.push({ sessionId: s.id, rule, detail })
  }
  const roots = new Map<number, TreeSessionRow | undefined>()
  for (const s of all) {
    const root = rootOf(s, byPk, roots)
    if (root === undefined) {
      broken.add(s.id)
      fail(s, 'branch parent', chainProblem(s, byPk))
      continue
    }
    sessionRules(s, root, byPk.get(s.parent ?? -1), fail)
  }
  return { problems, broken }
}

/** The rules of one session whose chain leads to `root`. */
function sessionRules(
  s: TreeSessionRow,
  root: TreeSessionRow,
  parent: TreeSessionRow | undefined,
  fail: (s: TreeSessionRow, rule: string, detail: string) => void,
): void {
  const forkColumns = {
    fork_seq: s.fork_seq,
    forked_at: s.forked_at,
    fork_version: s.fork_version,
    fork_tokens: s.fork_tokens,
  }
  if (parent === undefined) {
    if (s.kind !== 'root') fail(s, 'branch kind', `a session without a parent is ${s.kind}, not root`)
    const set = Object.entries(forkColumns).filter(([, v]) => v !== null)
    if (set.length > 0)
      fail(
        s,
        'branch kind',
        `a root has fork columns: ${set.map(([k, v]) => `${k} ${String(v)}`).join(', ')}`,
      )
    if (s.branch_rows > 0) fail(s, 'branch rows', `a root holds ${s.branch_rows} branch rows`)
    return
  }
  if (s.kind !== 'fork' && s.kind !== 'abandoned')
    fail(s, 'branch kind', `a branch of "${parent.id}" is ${s.kind}, not fork or abandoned`)
  const missing = Object.entries(forkColumns).filter(([, v]) => v === null)
  if (missing.length > 0)
    fail(s, 'branch kind', `a branch of "${parent.id}" has no ${missing.map(([k]) => k).join(', ')}`)
  if (s.fork_seq !== null && (s.fork_seq < 0 || s.fork_seq >= lengthOf(parent)))
    fail(
      s,
      'branch fork point',
      `forked at seq ${s.fork_seq} of "${parent.id}", whose conversation has ${lengthOf(parent)} messages`,
    )
  if ((s.format ?? 'strands') !== (root.format ?? 'strands'))
    fail(
      s,
      'branch format',
      `a branch in ${s.format ?? 'strands'} of the root "${root.id}" in ${root.format ?? 'strands'}`,
    )
}

/** The root at the end of a session's parent chain, or undefined when the chain breaks or loops. */
function rootOf(
  s: TreeSessionRow,
  byPk: ReadonlyMap<number, TreeSessionRow>,
  memo: Map<number, TreeSessionRow | undefined>,
): TreeSessionRow | undefined {
  const path: number[] = []
  const seen = new Set<number>()
  let at: TreeSessionRow | undefined = s
  let root: TreeSessionRow | undefined
  while (at !== undefined) {
    if (memo.has(at.pk)) {
      root = memo.get(at.pk)
      break
    }
    if (seen.has(at.pk)) break
    seen.add(at.pk)
    path.push(at.pk)
    if (at.parent === null) {
      root = at
      break
    }
    at = byPk.get(at.parent)
  }
  for (const pk of path) memo.set(pk, root)
  return root
}

/** Why a session's chain does not lead to a root: the missing parent, or the cycle. */
function chainProblem(s: TreeSessionRow, byPk: ReadonlyMap<number, TreeSessionRow>): string {
  const ids: string[] = []
  const seen = new Set<number>()
  let at = s
  for (;;) {
    seen.add(at.pk)
    ids.push(`"${at.id}"`)
    if (at.parent === null) return `its parent chain ${ids.join(' → ')} ends at a root`
    const next = byPk.get(at.parent)
    if (next === undefined)
      return `its parent chain ${ids.join(' → ')} names a missing session (key ${at.parent})`
    if (seen.has(next.pk)) return `its parent chain loops: ${ids.join(' → ')} → "${next.id}"`
    at = next
  }
}
