/**
 * One run of the branch property tests: each command applied to the store and to the reference tree
 * (test/helpers/branch-tree.ts), with what the command itself returns checked on the way — the plan of an
 * `applyWindow`, a fold's plan and input, the branch `fork`/`rewind` return, the rows an append wrote, the
 * refusals. What every branch then holds is compared by the test (`compareTree`).
 */
import { expect } from 'vitest'
import {
  estimateTokens,
  type FoldRequest,
  type StoredMessageData,
  type WindowLimits,
} from '../../src/index.js'
import { makeSummary } from '../../src/summaries/summarize.js'
import type { Backend, LedgerStore } from './backend.js'
import { appendBatch, Ids, type Command } from './branch-commands.js'
import {
  appendRows,
  applyAppend,
  applyFold,
  applyWindowModel,
  effectiveTokens,
  foldInput,
  foldModel,
  NO_LIMITS,
  openCalls,
  pinModel,
  windowSeqs,
  type BranchState,
} from './branch-model.js'
import { BranchTree, type TreeNode } from './branch-tree.js'
import { refusalOf } from './refusal.js'
import { recordingSummarizer, summaryText } from './summarizers.js'
import { assertProgress, assertStepRulesOf } from './window-rules.js'
import type { WindowRuleProblem } from '../../src/check/window-rules.js'

/** A branch as `fork`, `rewind` and `branches` return it (BRANCH-SPEC.md, "Public API"). */
export interface BranchInfoShape {
  sessionId: string
  parentId: string | null
  forkSeq: number | null
  kind: 'root' | 'fork' | 'abandoned'
  createdAt: number
  actor: string | null
  reason: string | null
  depth: number
  messageCount: number
  ownMessages: number
}

/** The store calls of the branch tests: the suite's, and the branch API. */
export type BranchStore = LedgerStore & {
  fork(sessionId: string, options: Record<string, unknown>): Promise<BranchInfoShape>
  rewind(
    sessionId: string,
    options: Record<string, unknown>,
  ): Promise<{ session: BranchInfoShape; abandoned: BranchInfoShape | undefined; left: number }>
  branches(sessionId: string): Promise<BranchInfoShape[]>
  deleteSession(sessionId: string, options?: { subtree?: boolean }): Promise<unknown>
}

/** How often each case a property should reach was reached, over every run of the process. */
export const reached = new Map<string, number>()

function reach(what: string): void {
  reached.set(what, (reached.get(what) ?? 0) + 1)
}

/** The most sessions (live and abandoned) one run's tree grows to. */
const MAX_SESSIONS = 7

/** A run: the store, the reference tree and the ids minted so far. */
export class BranchRun {
  readonly tree: BranchTree
  /** Sessions deleted so far: the store must know none of them. */
  readonly gone = new Set<string>()
  /** Sessions rewound so far. */
  readonly rewound = new Set<string>()
  private readonly ids: Ids
  private readonly summarizer = recordingSummarizer()
  /** Every call id any session made (for late results, seen or not by the session). */
  private readonly calls: string[] = []
  /** Every plain text message appended anywhere (for echoes into sessions that do not see them). */
  private readonly texts: StoredMessageData[] = []
  private forks = 0
  /** Whether the rules are read through the store's API alone (see branches-match-reference.test.ts). */
  throughApi = false
  /** Problems already reported, left out of the rules checked (see branches-match-reference.test.ts). */
  known: ((p: WindowRuleProblem) => boolean) | undefined = undefined

  constructor(
    readonly store: BranchStore,
    readonly backend: Backend,
    readonly runId: string,
    state: BranchState,
  ) {
    this.tree = new BranchTree(`${runId}-root`, state)
    this.ids = new Ids(runId)
  }

  private pick(on: number): TreeNode {
    const live = this.tree.live()
    return live[on % live.length] as TreeNode
  }

  /** Applies one command to the store and to the model. */
  async step(c: Command): Promise<void> {
    const node = this.pick(c.on)
    const count = node.state.archive.length
    switch (c.kind) {
      case 'append':
        return this.append(node, appendBatch(c, openCalls(node.state.archive), this.ids))
      case 'late': {
        const id = this.calls[c.pick % Math.max(1, this.calls.length)]
        if (id === undefined) return
        const m: StoredMessageData = {
          role: 'user',
          content: [{ toolResult: { toolUseId: id, status: 'success', content: [{ text: 'late' }] } }],
          trackingId: this.ids.next('m'),
        }
        return this.append(node, [m])
      }
      case 'echo': {
        const seen = new Set(node.state.archive.map((m) => m.trackingId))
        const unseen = this.texts.filter((m) => !seen.has(m.trackingId))
        const m = unseen[c.pick % Math.max(1, unseen.length)]
        return m === undefined ? undefined : this.append(node, [m])
      }
      case 'fork':
        return count === 0 || this.tree.nodes.size >= MAX_SESSIONS
          ? undefined
          : this.fork(node, c.at === 'end' ? count - 1 : c.at % count, c.byTrackingId, c.named)
      case 'rewind':
        return count === 0 || this.tree.nodes.size >= MAX_SESSIONS
          ? undefined
          : this.rewind(node, c.at % count, c.named)
      case 'pin':
      case 'unpin':
        return count === 0 ? undefined : this.pin(node, c.at % count, c.kind === 'pin')
      case 'apply':
        return this.apply(node, { ...c.limits }, c.mode)
      case 'summarize':
        return this.summarize(node, { kind: 'ratio', ratio: c.ratio, preserve: c.preserve })
      case 'delete':
        return this.delete(c.on, c.subtree)
      case 'bad':
        return this.bad(node, c.what)
    }
  }

  /** Appends the opening of a run to the root. */
  async open(batch: readonly StoredMessageData[]): Promise<void> {
    await this.append(this.tree.get(this.tree.rootId), batch)
  }

  private async append(node: TreeNode, batch: readonly StoredMessageData[]): Promise<void> {
    if (batch.length === 0) return
    const rows = appendRows(node.state, batch)
    if ('refused' in rows) {
      // A result for a call this conversation never made (a sibling's call): refused, nothing written.
      const error = await refusalOf(() => this.store.append(node.id, batch))
      expect(error.code).toBe('INVALID_MESSAGE')
      reach('a result for a call the branch never made')
      return
    }
    const entries = await this.store.append(node.id, batch)
    expect(entries.map((e) => e.trackingId)).toStrictEqual(batch.map((m) => m.trackingId))
    // Each repair row the model expects, before the message it precedes; its trackingId is minted.
    const written: typeof rows = []
    let at = 0
    for (const r of rows) {
      if (!r.repair) {
        written.push(r)
        at++
        continue
      }
      const repair = entries[at]?.repair
      expect(repair, `a repair row before ${batch[at]?.trackingId} in ${node.id}`).toBeDefined()
      written.push({ ...r, message: { ...r.message, trackingId: repair?.trackingId ?? '' } })
    }
    expect(entries.filter((e) => e.repair !== undefined).length).toBe(rows.filter((r) => r.repair).length)
    if (written.some((r) => r.repair)) reach('a repair row')
    if (written.some((r) => r.form !== undefined)) reach('a late result')
    if (node.parent !== null) reach('an append in a branch')
    applyAppend(node.state, written)
    node.own += written.length
    for (const m of batch)
      for (const b of m.content) {
        if ('toolUse' in b) this.calls.push(b.toolUse.toolUseId)
        if ('text' in b && m.content.length === 1) this.texts.push(m)
      }
  }

  private async fork(node: TreeNode, atSeq: number, byTrackingId: boolean, named: boolean): Promise<void> {
    const newSessionId = named ? `${this.runId}-f${this.forks++}` : undefined
    const at = byTrackingId ? { trackingId: node.state.archive[atSeq]?.trackingId } : { atSeq }
    const info = await this.store.fork(node.id, {
      ...at,
      ...(newSessionId === undefined ? {} : { newSessionId }),
      actor: 'agent',
      reason: `try ${atSeq}`,
    })
    if (newSessionId !== undefined) expect(info.sessionId).toBe(newSessionId)
    this.tree.fork(node.id, atSeq, info.sessionId, 'agent', `try ${atSeq}`)
    reach(atSeq === node.state.archive.length - 1 ? 'a fork at the newest message' : 'a fork in the middle')
    if (node.parent !== null) reach('a fork of a fork')
    expect(pickListed(info)).toStrictEqual(this.listed(info.sessionId))
  }

  private async rewind(node: TreeNode, toSeq: number, named: boolean): Promise<void> {
    const count = node.state.archive.length
    const abandonedId = named ? `${this.runId}-a${this.forks++}` : this.tree.abandonedName(node.id)
    const result = await this.store.rewind(node.id, {
      toSeq,
      ...(named ? { abandonedId } : {}),
      actor: 'user',
      reason: `back to ${toSeq}`,
    })
    if (node.forkSeq !== null && toSeq < node.forkSeq) reach('a rewind to before the fork point')
    this.rewound.add(node.id)
    const abandoned = this.tree.rewind(node.id, toSeq, abandonedId, 'user', `back to ${toSeq}`)
    // The id of a deleted session is free again.
    if (abandoned !== undefined) this.gone.delete(abandonedId)
    reach(abandoned === undefined ? 'a rewind to the newest message' : 'a rewind')
    expect(result.left).toBe(count - 1 - toSeq)
    expect(result.abandoned?.sessionId).toBe(abandoned?.id)
    expect(pickListed(result.session)).toStrictEqual(this.listed(node.id))
    if (result.abandoned !== undefined)
      expect(pickListed(result.abandoned)).toStrictEqual(this.listed(abandonedId))
  }

  private listed(id: string) {
    return this.tree.listing().find((l) => l.sessionId === id)
  }

  private async pin(node: TreeNode, seq: number, pinned: boolean): Promise<void> {
    const limits = node.state.limits ?? NO_LIMITS
    if (!pinModel(node.state, seq, pinned, limits)) {
      // No window can show a message before the first plain user message: the pin is refused.
      const error = await refusalOf(() => this.store.pin(node.id, { seq }, { actor: 'agent' }, limits))
      expect([error.code, error.path]).toStrictEqual(['INVALID_OPTIONS', 'ref'])
    } else if (pinned) await this.store.pin(node.id, { seq }, { actor: 'agent', reason: 'property' }, limits)
    else await this.store.unpin(node.id, { seq })
  }

  private async apply(node: TreeNode, limits: WindowLimits, mode: 'apply' | 'overflow'): Promise<void> {
    const before = { boundary: node.state.boundary, window: windowSeqs(node.state) }
    const expected = applyWindowModel(node.state, limits, mode)
    const result = await this.store.applyWindow(node.id, limits, mode)
    expect(result).toStrictEqual(expected)
    const check = {
      store: this.store,
      throughApi: this.throughApi,
      known: this.known,
      sessionId: node.id,
      archive: node.state.archive,
      tokens: effectiveTokens(node.state),
      windowSeqs: windowSeqs(node.state),
      limits,
      result,
      mode,
      previousBoundary: before.boundary,
      summaryTokens: node.state.summary?.tokens,
    }
    const protectedSeqs = await assertStepRulesOf(check)
    if (mode === 'overflow')
      assertProgress({ ...check, before: before.window, boundaryBefore: before.boundary, protectedSeqs })
  }

  private async summarize(node: TreeNode, request: FoldRequest): Promise<void> {
    const limits = node.state.limits ?? NO_LIMITS
    const planned = await this.store.planFold(node.id, limits, request)
    const reference = foldModel(node.state, limits, request)
    if ('nothing' in planned) {
      expect(reference, `${node.id} folds nothing: ${planned.nothing}`).toBeUndefined()
      return
    }
    if (reference === undefined) throw new Error(`${node.id}: the store plans a fold the reference does not`)
    expect(planned.plan.decision.plan).toStrictEqual(reference.plan)
    expect(planned.plan.folded).toStrictEqual(reference.folded)
    const input = foldInput(node.state, reference.folded ?? [])
    expect(planned.plan.input).toStrictEqual(input)
    expect(planned.plan.previous).toBe(node.state.summary?.id)
    const previous =
      node.state.summary === undefined ? undefined : await this.store.summary(node.id, node.state.summary.id)
    const context = { store: this.store, sessionId: node.id, limits, tokenCounter: estimateTokens }
    const made = await makeSummary(context, this.summarizer.summarize, planned.plan.input, previous, {
      systemPrompt: undefined,
      model: undefined,
    })
    const record = await this.store.writeFold(planned.plan, made)
    expect(record.message.content).toStrictEqual([{ text: summaryText(input) }])
    expect(record.replaces).toBe(node.state.summary?.id)
    reach(
      node.state.summary !== undefined && node.parent !== null
        ? 'a fold over a summary in a branch'
        : 'a fold',
    )
    applyFold(
      node.state,
      reference,
      {
        id: record.id,
        message: record.message,
        tokens: record.tokens,
        toBoundary: record.toBoundary,
        own: true,
      },
      limits,
    )
  }

  private async delete(on: number, subtree: boolean): Promise<void> {
    const others = [...this.tree.nodes.values()].filter((n) => n.id !== this.tree.rootId)
    const target = others[on % Math.max(1, others.length)]
    if (target === undefined) return
    const gone = this.tree.delete(target.id, subtree)
    if (gone === false) {
      const error = await refusalOf(() => this.store.deleteSession(target.id, { subtree }))
      expect(error.code).toBe('BRANCH_HAS_CHILDREN')
      reach('a delete refused')
      return
    }
    await this.store.deleteSession(target.id, { subtree })
    reach(gone.length > 1 ? 'a delete of a subtree' : 'a delete')
    for (const g of gone) this.gone.add(g)
  }

  private async bad(
    node: TreeNode,
    what: Command & { kind: 'bad' } extends { what: infer W } ? W : never,
  ): Promise<void> {
    const count = node.state.archive.length
    const before = await this.backend.checksum(this.store)
    const expected: Record<typeof what, [() => Promise<unknown>, string, string | undefined]> = {
      'fork-past-end': [() => this.store.fork(node.id, { atSeq: count }), 'MESSAGE_NOT_FOUND', 'atSeq'],
      'fork-taken-id': [
        () => this.store.fork(node.id, { atSeq: Math.max(0, count - 1), newSessionId: this.tree.rootId }),
        count === 0 ? 'MESSAGE_NOT_FOUND' : 'SESSION_EXISTS',
        undefined,
      ],
      'rewind-past-end': [() => this.store.rewind(node.id, { toSeq: count }), 'MESSAGE_NOT_FOUND', 'toSeq'],
      'fork-both': [
        () => this.store.fork(node.id, { atSeq: 0, trackingId: node.state.archive[0]?.trackingId ?? 'x' }),
        'INVALID_OPTIONS',
        undefined,
      ],
      'fork-missing-session': [
        () => this.store.fork(`${this.runId}-nobody`, { atSeq: 0 }),
        'SESSION_NOT_FOUND',
        undefined,
      ],
    }
    const [call, code, path] = expected[what]
    const error = await refusalOf(call)
    expect([what, error.code]).toStrictEqual([what, code])
    if (path !== undefined) expect(error.path).toBe(path)
    expect(await this.backend.checksum(this.store)).toBe(before)
  }
}

/** The fields of a branch the model predicts (times left out). */
export function pickListed(b: BranchInfoShape) {
  return {
    sessionId: b.sessionId,
    parentId: b.parentId,
    forkSeq: b.forkSeq,
    kind: b.kind,
    actor: b.actor,
    reason: b.reason,
    depth: b.depth,
    messageCount: b.messageCount,
    ownMessages: b.ownMessages,
  }
}
