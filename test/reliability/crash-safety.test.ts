/**
 * Killed mid-write (on the backend the project selects: a SQLite file, or a PostgreSQL database whose
 * client process dies mid-statement): a child process runs an agent loop against a ledger and the parent SIGKILLs it
 * at random moments — while it opens the file, appends, pins, applies the window, or waits on a tool.
 * After every kill the parent opens the file and checks that nothing acknowledged went missing and that
 * every window rule still holds; a call left open by the kill is answered by a recorded repair row once
 * the next run continues the conversation.
 *
 * Default: 40 kills on SQLite (about 40 s on 2 shared cores), 30 on PostgreSQL. `CONTEXT_LEDGER_LONG=1`:
 * 600 kills.
 */
import { existsSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { openContextStore, type StoredMessageData } from '../../src/index.js'
import { BACKEND, makeBackend } from '../helpers/backend.js'
import { assertWindowRulesOf, type WindowRulesReport } from '../helpers/window-rules.js'
import { compareIndexWithView } from '../helpers/search-index.js'
import { sqliteOf } from '../helpers/ledger-open.js'
import { CRASH_LIMITS, MessageFactory, rng } from './workers/worker-kit.js'
import { collect, LONG, useWorker, type WorkerExit } from './support.js'

// On PostgreSQL every kill also costs a server connection's start and a snapshot read: half as many.
const KILLS = LONG ? 600 : BACKEND === 'postgres' ? 30 : 40
const SEED = Number(process.env.CONTEXT_LEDGER_SEED ?? Date.now() % 1_000_000)
const SESSION = 'crash'
const RANGES = CRASH_LIMITS.protectedMessages
const REPAIR_TEXT = 'Tool call interrupted: no result was recorded before the conversation continued.'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})
const launch = useWorker('crash-writer')

interface Acknowledged {
  /** trackingId → JSON the worker appended and saw return. */
  messages: Map<string, string>
  /** trackingId → pinned state whose pin/unpin call returned (or that arrived with the pin flag). */
  pins: Map<string, boolean>
  /** Largest boundary an acknowledged applyWindow reported. */
  boundary: number
}

function isRepair(m: StoredMessageData): boolean {
  const custom = m.metadata?.custom as { contextLedger?: { repair?: unknown } } | undefined
  return custom?.contextLedger?.repair === 'missing-tool-result'
}

/** Runs one worker until the kill, folding its acknowledgements into `ack`. */
async function runAndKill(
  path: string,
  run: number,
  ack: Acknowledged,
  r: ReturnType<typeof rng>,
): Promise<{ exit: WorkerExit; pending: [string, boolean] | undefined; killedBeforeReady: boolean }> {
  const child = launch([path, SESSION, String(SEED), String(run)])
  let pending: [string, boolean] | undefined
  // Most kills land in the agent loop; some while the worker is still starting and opening the file.
  const early = r.chance(0.15)
  let ready = false
  let timer: NodeJS.Timeout | undefined
  const kill = (): void => {
    child.kill('SIGKILL')
  }
  if (early) timer = setTimeout(kill, r.int(0, 400))
  const exit = await collect(child, (line) => {
    const [tag, a, b] = line.split(' ', 3)
    if (tag === 'R') {
      ready = true
      if (!early) timer = setTimeout(kill, r.int(5, 400))
    } else if (tag === 'A') {
      const json = line.slice(2)
      const m = JSON.parse(json) as StoredMessageData
      ack.messages.set(m.trackingId, json)
      if (m.metadata?.custom?.pinned === true) ack.pins.set(m.trackingId, true)
    } else if (tag === 'p' && a !== undefined) {
      pending = [a, b === '1']
    } else if (tag === 'P' && a !== undefined) {
      ack.pins.set(a, b === '1')
      pending = undefined
    } else if (tag === 'W' && a !== undefined) {
      ack.boundary = Math.max(ack.boundary, Number(a))
    }
  })
  clearTimeout(timer)
  return { exit, pending, killedBeforeReady: !ready }
}

/** Opens the ledger as a restarted process would and checks everything; returns the rule report. */
async function verify(
  path: string,
  ack: Acknowledged,
  pending: [string, boolean] | undefined,
  previous: number,
): Promise<{ report: WindowRulesReport; repairs: number; dangling: boolean }> {
  // A worker killed before it created the file left nothing to check yet.
  if (backend.name === 'sqlite' && existsSync(path)) {
    const file = openContextStore(path, { readonly: true })
    expect(file.connection().pragma('integrity_check', { simple: true })).toBe('ok')
    expect(file.connection().pragma('foreign_key_check')).toStrictEqual([])
    file.close()
  }
  const store = await backend.openAt(path)
  try {
    const report = await assertWindowRulesOf(store, SESSION, RANGES, {
      appended: ack.messages,
      previousBoundary: Math.max(previous, ack.boundary),
    })
    // The full-text index (SQLite's; PostgreSQL has none yet, see docs/postgres.md): no entry for a row
    // the kill rolled back, none missing at or below the watermark, and the watermark never past the last row.
    const file = sqliteOf(store)?.store
    if (file !== undefined) {
      const { extra, missing } = compareIndexWithView(file.connection())
      expect(extra).toStrictEqual([])
      expect(missing).toStrictEqual([])
      const state = file
        .connection()
        .prepare<[], { indexed_to: number; last: number }>(
          'SELECT indexed_to, (SELECT coalesce(max(id), 0) FROM messages) AS last FROM search_state',
        )
        .get()
      expect(state?.indexed_to ?? 0).toBeLessThanOrEqual(state?.last ?? 0)
    }
    const byId = new Map(report.history.map((e) => [e.trackingId, e]))
    for (const [trackingId, pinned] of ack.pins) {
      const entry = byId.get(trackingId)
      expect(entry, `pinned message ${trackingId}`).toBeDefined()
      if (entry?.pinned !== pinned)
        expect(pending, `pin state of ${trackingId} (acknowledged ${pinned})`).toStrictEqual([
          trackingId,
          entry?.pinned,
        ])
    }
    // The call in flight at the kill landed one way or the other; from now on that state must hold.
    if (pending !== undefined) {
      const entry = byId.get(pending[0])
      if (entry !== undefined) ack.pins.set(pending[0], entry.pinned)
    }
    let repairs = 0
    for (const e of report.history) {
      if (!isRepair(e.message)) continue
      repairs++
      expect(e.message.role).toBe('user')
      for (const block of e.message.content) {
        expect(block).toMatchObject({ toolResult: { status: 'error', content: [{ text: REPAIR_TEXT }] } })
      }
    }
    const last = report.history.at(-1)?.message
    const dangling = last?.role === 'assistant' && last.content.some((b) => 'toolUse' in b)
    return { report, repairs, dangling }
  } finally {
    await store.close()
  }
}

describe(`crash safety [${BACKEND}]`, () => {
  it(`keeps every acknowledged write and every window rule across ${KILLS} SIGKILLs (seed ${SEED})`, async () => {
    const path = await backend.freshLocation()
    const r = rng(SEED)
    const ack: Acknowledged = { messages: new Map(), pins: new Map(), boundary: 0 }
    let previous = 0
    let danglingAtKill = 0
    let killedBeforeReady = 0
    let repairs = 0
    const started = Date.now()
    for (let run = 0; run < KILLS; run++) {
      const { exit, pending, killedBeforeReady: early } = await runAndKill(path, run, ack, r)
      expect(exit.signal, `run ${run} ended by itself: ${exit.stderr}`).toBe('SIGKILL')
      if (early) killedBeforeReady++
      const seen = await verify(path, ack, pending, previous)
      previous = seen.report.boundary
      repairs = seen.repairs
      if (seen.dangling) danglingAtKill++
    }

    // The conversation goes on after the last kill: a dangling call is answered by a repair row.
    const store = await backend.openAt(path)
    const before = (await store.session(SESSION))?.messageCount ?? 0
    const lastBefore = (await store.message(SESSION, { seq: before - 1 })).message
    const next = new MessageFactory('final').user('still there?')
    await store.append(SESSION, next)
    ack.messages.set(next.trackingId as string, JSON.stringify(next))
    const report = await assertWindowRulesOf(store, SESSION, RANGES, {
      appended: ack.messages,
      previousBoundary: previous,
    })
    const openAtEnd = lastBefore.role === 'assistant' && lastBefore.content.some((b) => 'toolUse' in b)
    expect(report.messageCount).toBe(before + (openAtEnd ? 2 : 1))
    if (openAtEnd) expect(isRepair(report.history[before]?.message as StoredMessageData)).toBe(true)

    console.log(
      `crash safety [${BACKEND}]: ${KILLS} kills (${killedBeforeReady} before the worker was ready) in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${ack.messages.size} acknowledged messages, ${report.messageCount} in the ledger, ` +
        `${danglingAtKill} kills left a call open, ${repairs} repair rows, boundary ${report.boundary}`,
    )
    expect(ack.messages.size).toBeGreaterThan(KILLS)
    expect(danglingAtKill).toBeGreaterThan(0)
    expect(repairs).toBeGreaterThan(0)
  }, 600_000)
})
