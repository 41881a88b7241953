/**
 * `context-ledger branches <file> [session]`: the tree of branches holding a session — or every tree of
 * the file — root first, then each branch under its parent (children by when they were made), with its
 * fork point, who made it, when, why, its kind (`root`, `fork`, `abandoned` by a rewind) and its
 * messages (the whole conversation it sees, and the rows it holds itself). It reads `store.branches()`
 * (docs/api.md, "Branches"): a fork writes one session row, so the tree costs a few seeks per branch,
 * never a pass over the archive.
 */
import type { BranchInfo, ContextStore } from '../../store/context-store.js'
import { unknownSession } from '../errors.js'
import { count, counted, iso, time, visible } from '../format.js'
import { openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'
import { printTable } from '../table.js'

/** One branch in `branches --json`. */
export interface BranchJson {
  sessionId: string
  parentId: string | null
  forkSeq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  depth: number
  createdAt: string | null
  actor: string | null
  reason: string | null
  messageCount: number
  ownMessages: number
}

/**
 * A branch as `--json` prints it.
 *
 * @param b - the branch
 * @returns its JSON
 */
export function branchJson(b: BranchInfo): BranchJson {
  return {
    sessionId: b.sessionId,
    parentId: b.parentId,
    forkSeq: b.forkSeq,
    kind: b.kind,
    depth: b.depth,
    createdAt: iso(b.createdAt),
    actor: b.actor,
    reason: b.reason,
    messageCount: b.messageCount,
    ownMessages: b.ownMessages,
  }
}

/**
 * The trees to print: the one holding `sessionId`, or every tree of the file (each root's, by root id).
 *
 * @param store - the store
 * @param file - the ledger, for the error
 * @param sessionId - a session of the tree, or undefined for all
 * @returns each tree as `branches()` lists it
 */
function treesOf(store: ContextStore, file: string, sessionId: string | undefined): BranchInfo[][] {
  if (sessionId !== undefined) {
    if (store.session(sessionId) === undefined) throw unknownSession(file, sessionId)
    return [store.branches(sessionId)]
  }
  return store
    .sessions()
    .filter((s) => s.parentId === null)
    .map((s) => store.branches(s.id))
}

/**
 * Each branch's place in its tree as box-drawing guides: `├─ `/`└─ ` before a branch, `│  ` under a
 * parent that has more children below.
 *
 * @param tree - one tree, root first then depth first (as `branches()` lists it)
 * @returns the prefix of each branch's id
 */
export function treeGuides(tree: readonly BranchInfo[]): string[] {
  return tree.map((b, i) => {
    let prefix = ''
    for (let d = 1; d <= b.depth; d++) {
      // Whether the ancestor at depth d (or the branch itself, at its own depth) has a later sibling.
      const more = hasLaterSibling(tree, i, d)
      prefix += d === b.depth ? (more ? '├─ ' : '└─ ') : more ? '│  ' : '   '
    }
    return prefix
  })
}

/** Whether the branch at depth `d` on the path to `tree[i]` has a sibling after it. */
function hasLaterSibling(tree: readonly BranchInfo[], i: number, d: number): boolean {
  for (let j = i + 1; j < tree.length; j++) {
    const depth = tree[j]?.depth ?? 0
    if (depth < d) return false
    if (depth === d) return true
  }
  return false
}

/**
 * Runs `branches`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - a session of the tree to print; every tree when undefined
 * @param options - `json`
 * @returns the exit code
 */
export async function branches(
  ctx: CommandContext,
  file: string,
  sessionId: string | undefined,
  options: { json?: boolean },
): Promise<number> {
  const store = await openStore(file)
  try {
    const db = store.connection()
    const trees = db.transaction(() => treesOf(store, file, sessionId)).deferred()
    const out = ctx.out
    if (options.json === true) {
      out.json({ file, sessionId: sessionId ?? null, trees: trees.map((t) => t.map(branchJson)) })
      return 0
    }
    if (trees.length === 0) {
      out.line(`${visible(file)} holds no sessions yet.`)
      return 0
    }
    const rows = trees.flatMap((tree) => {
      const guides = treeGuides(tree)
      return tree.map((b, i) => [
        `${guides[i] ?? ''}${b.sessionId}`,
        b.kind,
        b.forkSeq === null ? '—' : String(b.forkSeq),
        count(b.messageCount),
        count(b.ownMessages),
        b.parentId === null ? '—' : (b.actor ?? '—'),
        time(b.createdAt),
        b.reason ?? '',
      ])
    })
    printTable(
      out,
      [
        { head: 'branch' },
        { head: 'kind' },
        { head: 'fork at', align: 'right' },
        { head: 'messages', align: 'right' },
        { head: 'own', align: 'right' },
        { head: 'by' },
        { head: 'made (UTC)' },
        { head: 'why' },
      ],
      rows,
    )
    const all = trees.reduce((n, t) => n + t.length, 0)
    out.line(
      out.color.dim(
        `${counted(trees.length, 'tree')}, ${counted(all, 'session')}; fork at: the last seq a branch shares with its parent`,
      ),
    )
    return 0
  } finally {
    store.close()
  }
}
