/**
 * `context-ledger check <file>`: SQLite's `integrity_check` and `foreign_key_check`, then, for every
 * session, every window rule re-verified from the archive by the checker the property tests use
 * (`src/check/window-rules.ts`) and the ledger's own bookkeeping (running token sums, the kept rows'
 * totals, the summary the window shows), after the tree of branches (`check/tree-rules.ts`: parents
 * exist, no cycle, fork points within the parent; a session whose parent chain is broken is reported,
 * not read). Exit 1 with the list when anything is wrong.
 *
 * The rules checked are those that hold at every moment. Those about the limits (the window within
 * `windowSize` and `tokenBudget`) hold after an `applyWindow()` and not between appends, so they are not
 * checked here. A file at an older schema gets the integrity checks only (exit 2 says the rules were not
 * checked and how to upgrade).
 */
import type Database from 'better-sqlite3'
import { checkSession } from '../../check/check-session.js'
import { checkTree } from '../../check/tree-rules.js'
import { prepareSpec } from '../../db/typed-statement.js'
import type { ContextStore } from '../../store/context-store.js'
import { EXIT, unknownSession } from '../errors.js'
import { count, counted, visible } from '../format.js'
import { inspect, olderSchemaMessage, openStore } from '../open-ledger.js'
import { Progress } from '../progress.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'

/** One problem `check` found. */
export interface CheckProblem {
  /** The session, or null for a problem of the file. */
  sessionId: string | null
  /** What is wrong: `integrity`, `foreign key`, a window rule's name, `token sums`, … */
  rule: string
  /** Where and what. */
  detail: string
}

function integrity(db: Database.Database): CheckProblem[] {
  const problems: CheckProblem[] = []
  for (const row of db.pragma('integrity_check') as Record<string, unknown>[]) {
    const text = String(Object.values(row)[0])
    if (text !== 'ok') problems.push({ sessionId: null, rule: 'integrity', detail: text })
  }
  for (const row of db.pragma('foreign_key_check') as {
    table?: unknown
    rowid?: unknown
    parent?: unknown
  }[])
    problems.push({
      sessionId: null,
      rule: 'foreign key',
      detail: `${String(row.table)} row ${String(row.rowid)} refers to a missing ${String(row.parent)} row`,
    })
  return problems
}

/** Checks one session with the checker the property tests use; returns its problems and how many messages it read. */
function checkOne(
  store: ContextStore,
  sessionId: string,
  progress: Progress,
  before: number,
): { problems: CheckProblem[]; messages: number } {
  const r = checkSession(store, sessionId, {
    onProgress: (n) => {
      progress.update(before + n)
    },
  })
  return {
    problems: r.problems.map((p) => ({ sessionId: p.sessionId, rule: p.rule, detail: p.detail })),
    messages: r.messageCount,
  }
}

/**
 * Runs `check`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param options - `json`, `session`, `progress`
 * @returns 0 when all is well, 1 with problems, 2 when the file cannot be checked
 */
export async function check(
  ctx: CommandContext,
  file: string,
  options: { json?: boolean; session?: string; progress?: boolean },
): Promise<number> {
  const ledger = inspect(file, { older: true })
  const store = ledger.kind === 'current' ? await openStore(file) : undefined
  const out = ctx.out
  try {
    const progress = new Progress(ctx.io, options.progress !== false, `checking ${file}`)
    progress.update(0, '(integrity check)')
    const problems = integrity(ledger.db)
    let sessionsChecked = 0
    let messagesChecked = 0
    if (store !== undefined) {
      const all = prepareSpec(store.connection(), CLI_READS.sessionIds).all()
      const chosen = options.session === undefined ? all : all.filter((id) => id === options.session)
      if (options.session !== undefined && chosen.length === 0) throw unknownSession(file, options.session)
      // The tree of branches first: a session whose parent chain is broken has no conversation to check.
      const tree = checkTree(store.connection())
      const mine = new Set(chosen)
      problems.push(...tree.problems.filter((p) => mine.has(p.sessionId)))
      for (const id of chosen) {
        if (tree.broken.has(id)) continue
        const r = checkOne(store, id, progress, messagesChecked)
        problems.push(...r.problems)
        sessionsChecked++
        messagesChecked += r.messages
        progress.update(messagesChecked)
      }
    }
    progress.done()
    const rulesChecked = ledger.kind === 'current'
    if (options.json === true)
      out.json({
        file,
        ok: problems.length === 0 && rulesChecked,
        rulesChecked,
        schemaVersion: ledger.schemaVersion,
        sessionsChecked,
        messagesChecked,
        problems,
      })
    else {
      const c = out.color
      for (const p of problems)
        out.line(
          `${c.red('✗')} ${p.sessionId === null ? '' : `${visible(p.sessionId)}: `}${c.bold(p.rule)} — ${visible(p.detail)}`,
        )
      if (problems.length === 0)
        out.line(
          rulesChecked
            ? `${c.green('✓')} ${visible(file)}: integrity ok; window rules hold in ${counted(sessionsChecked, 'session')} (${counted(messagesChecked, 'message')})`
            : `${c.green('✓')} ${visible(file)}: integrity ok`,
        )
      else
        out.line(`${count(problems.length)} problem${problems.length === 1 ? '' : 's'} in ${visible(file)}`)
    }
    if (problems.length > 0) return EXIT.problems
    if (ledger.kind === 'older') {
      out.note(
        out.errColor.red(
          `context-ledger: window rules not checked: ${olderSchemaMessage(file, ledger.schemaVersion, ledger.current)}`,
        ),
      )
      return EXIT.unusable
    }
    return EXIT.ok
  } finally {
    store?.close()
    ledger.db.close()
  }
}
