/**
 * The logs, pins and summaries on a branch (docs/design.md, "Branches"): a branch's edit and pin logs
 * are its own entries and its ancestors' up to its fork (by seq and by version, see `Lineage.logs`); its
 * pinned messages are its own pinned rows and the inherited rows its `branch_rows` pin; its summaries are
 * its own and the one it showed at the fork (the ancestor's row, with the end the branch gave it).
 */
import type { LogEntryRow } from '../../db/branch-statements.js'
import type { PinnedParams } from '../../db/recall-statements.js'
import type { PinnedRow, SummaryRow } from '../../db/statements.js'
import type { BranchRouter } from './router.js'
import { ANY, FIRST, viewOf, type Call, type Routes } from './route-types.js'
import type { BranchView } from './view.js'

const EVERY = Number.MAX_SAFE_INTEGER

/** A branch's log entries (its own and its ancestors' up to each fork), oldest first. */
function logOf(
  v: BranchView,
  read: (pk: number, maxSeq: number, maxVersion: number) => LogEntryRow[],
): (LogEntryRow & { session: number })[] {
  const out = read(v.pk, EVERY, EVERY).map((e) => ({ ...e, session: v.pk }))
  for (const cut of v.lineage.logs)
    out.push(...read(cut.pk, cut.maxSeq, cut.maxVersion).map((e) => ({ ...e, session: cut.pk })))
  return out.sort((a, b) => a.id - b.id)
}

/** The trackingIds of seqs of the branch's conversation, looked up once each. */
function uids(v: BranchView): (seq: number) => string {
  const known = new Map<number, string>()
  return (seq) => {
    let uid = known.get(seq)
    if (uid === undefined) {
      uid = v.messageAt(seq)?.uid ?? ''
      known.set(seq, uid)
    }
    return uid
  }
}

/** Session ids by pk, looked up once each. */
function ids(v: BranchView): (pk: number) => string {
  const known = new Map<number, string>()
  return (pk) => {
    let id = known.get(pk)
    if (id === undefined) {
      id = v.base.sessionByPk.get(pk)?.id ?? ''
      known.set(pk, id)
    }
    return id
  }
}

/** The rows a branch pins among those it inherits, with the latest pin visible to it. */
function inheritedPins(v: BranchView): PinnedRow[] {
  const seqs = v.br.branchPinnedIn.all(v.pk, 0, v.ownFrom)
  if (seqs.length === 0) return []
  const session = v.base.sessionByPk.get(v.pk)
  if (session === undefined) return []
  const latest = new Map<number, LogEntryRow>()
  for (const e of logOf(v, (pk, s, n) => v.br.pinEventsUpTo.all(pk, s, n)))
    if (e.kind === 'pin') latest.set(e.seq, e)
  const out: PinnedRow[] = []
  for (const seq of seqs) {
    const m = v.messageAt(seq)
    if (m === undefined) continue
    const e = latest.get(seq)
    out.push({
      session_id: session.id,
      format: session.format,
      seq,
      uid: m.uid,
      body: m.body,
      kept: m.kept,
      boundary: session.boundary,
      actor: e?.actor ?? null,
      reason: e?.reason ?? null,
      at: e?.at ?? null,
    })
  }
  return out
}

/** SQLite's `lower()`: ASCII letters only. */
const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** The filters of `pinnedFiltered`, as its SQL applies them. */
function passes(r: PinnedRow, p: PinnedParams): boolean {
  return (
    (p.actor === null || (r.actor ?? 'append') === p.actor) &&
    (p.reason === null || lower(r.reason ?? '').includes(lower(p.reason))) &&
    (p.since === null || (r.at ?? 0) >= p.since) &&
    (p.until === null || (r.at ?? 0) < p.until)
  )
}

/** Every session's pinned rows: the prepared statement's, and those branches pin among inherited rows. */
function everyPin(router: BranchRouter, own: PinnedRow[], keep: (r: PinnedRow) => boolean): PinnedRow[] {
  const more = router.br.branchesWithPins.all().flatMap((pk) => inheritedPins(router.view(pk)).filter(keep))
  if (more.length === 0) return own
  return [...own, ...more].sort((a, b) =>
    a.session_id === b.session_id ? a.seq - b.seq : a.session_id < b.session_id ? -1 : 1,
  )
}

/**
 * The summaries a branch inherits: the one its window showed at the fork (with the end the branch gave it)
 * and every ancestor's summary its summaries replaced or regenerated, down each chain: a link below is
 * ended by the summary above it (`'replaced'` or `'regenerated'`, when that one was written), never by
 * what its owner did to it after the fork (a later eviction, a drop).
 *
 * @param v - the branch
 * @param own - its own summaries
 * @returns the inherited ones, in no order
 */
function inheritedSummaries(v: BranchView, own: readonly SummaryRow[]): SummaryRow[] {
  const fork = v.br.forkSummaryOf.get(v.pk)
  const out: SummaryRow[] = []
  const seen = new Set<number>()
  const queue: { id: number; above: SummaryRow | undefined }[] = []
  if (fork !== undefined && fork.fork_summary !== null)
    queue.push({ id: fork.fork_summary, above: undefined })
  for (const r of own)
    for (const id of [r.replaces, r.regenerates]) if (id !== null) queue.push({ id, above: r })
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next.id)) continue
    seen.add(next.id)
    const owner = v.br.summaryOwner.get(next.id)
    const row = owner === undefined || owner === v.pk ? undefined : v.base.summaryById.get(owner, next.id)
    if (row === undefined) continue
    const above = next.above
    if (above === undefined && fork !== undefined)
      out.push({ ...row, ended_at: fork.ended_at, end_reason: fork.end_reason as SummaryRow['end_reason'] })
    // A link below: the summary above it replaced (or regenerated) it, which is its end as the session
    // that wrote the link above left it; the owner's own end may be from after the fork (its later cut).
    else if (above !== undefined)
      out.push({
        ...row,
        ended_at: above.created_at,
        end_reason: above.regenerates === row.id ? 'regenerated' : 'replaced',
      })
    else out.push(row)
    for (const id of [row.replaces, row.regenerates]) if (id !== null) queue.push({ id, above: row })
  }
  return out
}

/** A summary of the branch's lineage by `find` (its own first). */
function lineageSummary(c: Call, find: (pk: number) => unknown): unknown {
  for (const pk of viewOf(c).lineage.pks) {
    const row = find(pk)
    if (row !== undefined) return row
  }
  return undefined
}

export const LOG_ROUTES: Routes = {
  edits: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const uid = uids(v)
      return logOf(v, (pk, s, n) => v.br.editsUpTo.all(pk, s, n)).map((e) => ({
        seq: e.seq,
        uid: uid(e.seq),
        kind: e.kind,
        actor: e.actor,
        reason: e.reason,
        at: e.at,
        body: e.body,
      }))
    },
  },
  pinEvents: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const uid = uids(v)
      const id = ids(v)
      return logOf(v, (pk, s, n) => v.br.pinEventsUpTo.all(pk, s, n)).map((e) => ({
        session_id: id(e.session),
        seq: e.seq,
        uid: uid(e.seq),
        action: e.kind,
        actor: e.actor,
        reason: e.reason,
        at: e.at,
      }))
    },
  },
  pinnedMessages: {
    pk: FIRST,
    all: (c) => [...inheritedPins(viewOf(c)), ...(c.prepared.all(...c.args) as PinnedRow[])],
  },
  allPinnedMessages: {
    pk: ANY,
    always: true,
    all: (c) => everyPin(c.router, c.prepared.all() as PinnedRow[], () => true),
  },
  pinnedFiltered: {
    pk: ANY,
    always: true,
    all: (c) => {
      const p = c.args[0] as PinnedParams
      const own = c.prepared.all(p) as PinnedRow[]
      if (p.session === null) return everyPin(c.router, own, (r) => passes(r, p))
      if (!c.router.isBranch(p.session)) return own
      return [...inheritedPins(c.router.view(p.session)).filter((r) => passes(r, p)), ...own]
    },
  },
  summaryById: {
    pk: FIRST,
    get: (c) => lineageSummary(c, (pk) => c.prepared.get(pk, c.args[1])),
  },
  summaryByUid: {
    pk: FIRST,
    get: (c) => lineageSummary(c, (pk) => c.prepared.get(pk, c.args[1])),
  },
  summariesOf: {
    pk: FIRST,
    all: (c) => {
      const v = viewOf(c)
      const limit = c.args[1] as number
      const own = c.prepared.all(...c.args) as SummaryRow[]
      const inherited = inheritedSummaries(v, own)
      if (inherited.length === 0) return own
      return [...own, ...inherited].sort((a, b) => b.id - a.id).slice(0, limit)
    },
  },
}
