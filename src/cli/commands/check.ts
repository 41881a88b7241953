/**
 * `context-ledger check <file>`: SQLite's `integrity_check` and `foreign_key_check`, then, for every
 * session, every window rule re-verified from the archive by the checker the property tests use
 * (`src/check/window-rules.ts`) and the ledger's own bookkeeping (running token sums, the kept rows'
 * totals, the summary the window shows). Exit 1 with the list when anything is wrong.
 *
 * The rules checked are those that hold at every moment. Those about the limits (the window within
 * `windowSize` and `tokenBudget`) hold after an `applyWindow()` and not between appends, so they are not
 * checked here. A file at an older schema gets the integrity checks only (exit 2 says the rules were not
 * checked and how to upgrade).
 */
import type Database from 'better-sqlite3'
import { shapeOf, type MessageShape } from '../../check/archive-facts.js'
import { checkWindowRules } from '../../check/window-rules.js'
import { prepareSpec } from '../../db/typed-statement.js'
import type { ContextStore } from '../../store/context-store.js'
import { parseBody } from '../../store/entries.js'
import { parseLimits } from '../../store/explain.js'
import { alternateRoles } from '../../window/alternate-roles.js'
import { EXIT, unknownSession } from '../errors.js'
import { count } from '../format.js'
import { inspect, olderSchemaMessage, openStore } from '../open-ledger.js'
import { Progress } from '../progress.js'
import type { CommandContext } from '../program.js'
import { CLI_READS, type CheckSessionRow } from '../statements.js'

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

/** Checks one session; returns its problems and how many messages it read. */
function checkSession(
  store: ContextStore,
  db: Database.Database,
  s: CheckSessionRow,
  progress: Progress,
  before: number,
): { problems: CheckProblem[]; messages: number } {
  return db
    .transaction(() => {
      const problems: CheckProblem[] = []
      const fail = (rule: string, detail: string): void => {
        problems.push({ sessionId: s.id, rule, detail })
      }
      const session = store.session(s.id)
      const window = store.window(s.id)
      let summaryTrackingId: string | undefined
      if (session?.summaryId !== undefined) {
        const ref = prepareSpec(db, CLI_READS.summaryRef).get(session.summaryId)
        if (ref === undefined || ref.session !== s.pk)
          fail(
            'summary exists',
            `the session shows summary ${session.summaryId}, which is not one of its summaries`,
          )
        else {
          if (ref.ended_at !== null)
            fail('summary current', `the session shows summary ${session.summaryId}, which has ended`)
          summaryTrackingId = store.summary(s.id, session.summaryId).trackingId
        }
      }
      const seqs: number[] = []
      const trackingIds: string[] = []
      const shapes: MessageShape[] = []
      const pinned = new Set<number>()
      let sum = 0
      for (const r of prepareSpec(db, CLI_READS.archive).iterate(s.pk)) {
        let message
        try {
          message = parseBody(r.body)
        } catch {
          fail('body is JSON', `seq ${r.seq} holds a body that is not JSON`)
          continue
        }
        if (message.trackingId !== r.uid)
          fail('archive identity', `seq ${r.seq} stores trackingId ${message.trackingId} for ${r.uid}`)
        sum += r.tokens
        if (r.cum_tokens !== sum) {
          fail('token sums', `seq ${r.seq} has cum_tokens ${r.cum_tokens}, the running sum is ${sum}`)
          sum = r.cum_tokens
        }
        seqs.push(r.seq)
        trackingIds.push(r.uid)
        shapes.push(shapeOf(message))
        if (r.pinned === 1) pinned.add(r.seq)
        if (seqs.length % 5000 === 0) progress.update(before + seqs.length)
      }
      const kept = prepareSpec(db, CLI_READS.keptCounted).get(s.pk) ?? { count: 0, tokens: 0 }
      if (s.kept_count !== null && s.kept_count !== kept.count)
        fail('kept totals', `the session counts ${s.kept_count} kept rows, there are ${kept.count}`)
      if (s.kept_tokens !== null && s.kept_tokens !== kept.tokens)
        fail('kept totals', `the session counts ${s.kept_tokens} kept tokens, there are ${kept.tokens}`)
      const limits = parseLimits(s.limits)
      const result = checkWindowRules({
        sessionId: s.id,
        archive: { seqs, trackingIds, shapes, pinned },
        session:
          session === undefined
            ? undefined
            : {
                messageCount: session.messageCount,
                boundary: session.boundary,
                windowMessages: session.windowMessages,
                summaryTrackingId,
              },
        window,
        alternate: alternateRoles(window),
        ranges: { first: limits?.first ?? 0, last: limits?.last ?? 0 },
      })
      for (const p of result.problems)
        problems.push({ sessionId: p.sessionId, rule: p.rule, detail: p.detail })
      return { problems, messages: seqs.length }
    })
    .deferred()
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
      const all = prepareSpec(store.connection(), CLI_READS.checkSessions).all()
      const chosen = options.session === undefined ? all : all.filter((s) => s.id === options.session)
      if (options.session !== undefined && chosen.length === 0) throw unknownSession(file, options.session)
      for (const s of chosen) {
        const r = checkSession(store, store.connection(), s, progress, messagesChecked)
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
          `${c.red('✗')} ${p.sessionId === null ? '' : `${p.sessionId}: `}${c.bold(p.rule)} — ${p.detail}`,
        )
      if (problems.length === 0)
        out.line(
          rulesChecked
            ? `${c.green('✓')} ${file}: integrity ok; window rules hold in ${count(sessionsChecked)} sessions (${count(messagesChecked)} messages)`
            : `${c.green('✓')} ${file}: integrity ok`,
        )
      else out.line(`${count(problems.length)} problem${problems.length === 1 ? '' : 's'} in ${file}`)
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
