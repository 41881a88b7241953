/**
 * Crash-test worker: an agent loop that never stops on its own (the parent SIGKILLs it). Each turn is a
 * user message, zero to two tool rounds (single or parallel calls, sometimes answered only in part or
 * not at all, sometimes appended as one batch), a reply, the occasional pin or unpin, and an
 * `applyWindow()` (or an overflow `reduce()`). Between a toolUse and its result the "tool" sleeps a few
 * ms, which is where a kill leaves a call open.
 *
 * Protocol (stdout, one line each): `R` ready; `A <json>` a message whose append returned (the JSON the
 * caller passed, trackingId included); `p <trackingId> <0|1>` a pin change about to be asked for and
 * `P …` once it returned; `W <boundary>` an applied window.
 *
 * Usage: crash-writer <ledger> <sessionId> <seed> <run>, the ledger a SQLite file or a PostgreSQL
 * connection string (the worker drives either through the conformance suite's async API).
 */
import type { MessageData } from '../../../src/index.js'
import { managerOf, openLedger } from '../../helpers/ledger-open.js'
import { CRASH_LIMITS, MessageFactory, report, rng } from './worker-kit.js'

const [path, sessionId, seedArg, runArg] = process.argv.slice(2)
if (path === undefined || sessionId === undefined || seedArg === undefined || runArg === undefined)
  throw new Error('usage: crash-writer <db> <sessionId> <seed> <run>')
const run = Number(runArg)
const r = rng(Number(seedArg) * 7919 + run)
// A worker the parent forgot about must not run forever.
setTimeout(() => process.exit(3), 60_000).unref()

const store = await openLedger(path)
const manager = await managerOf(store, { sessionId, ...CRASH_LIMITS })
const f = new MessageFactory(`r${run}`)
const sleep = new Int32Array(new SharedArrayBuffer(4))
report('R')

async function append(messages: MessageData | MessageData[]): Promise<void> {
  const list = Array.isArray(messages) ? messages : [messages]
  await manager.append(list)
  for (const m of list) report('A', JSON.stringify(m))
}

async function setPin(trackingId: string, pinned: boolean): Promise<void> {
  report('p', trackingId, pinned ? 1 : 0)
  if (pinned) await manager.pin({ trackingId }, { actor: 'agent', reason: `crash run ${run}` })
  else await manager.unpin({ trackingId }, { actor: 'user' })
  report('P', trackingId, pinned ? 1 : 0)
}

for (let turn = 0; ; turn++) {
  await append(f.user(`run ${run} turn ${turn}: ${'q'.repeat(r.int(1, 200))}`, r.chance(0.08)))
  const rounds = r.chance(0.7) ? r.int(1, 2) : 0
  for (let k = 0; k < rounds; k++) {
    const { message, ids } = f.toolUse(r.int(1, 3))
    if (r.chance(0.15)) {
      await append([message, f.toolResult(ids, r.int(0, 300))])
      continue
    }
    await append(message)
    Atomics.wait(sleep, 0, 0, r.int(0, 15))
    // Now and then the tool dies without a result for some or all of the calls.
    const answered = r.chance(0.1) ? ids.slice(0, r.int(0, ids.length - 1)) : ids
    if (answered.length > 0) await append(f.toolResult(answered, r.int(0, 300)))
  }
  await append(f.reply(`reply ${turn}: ${'a'.repeat(r.int(1, 300))}`))
  const count = (await store.session(sessionId))?.messageCount ?? 0
  if (count > 0 && r.chance(0.1))
    await setPin((await store.message(sessionId, { seq: r.int(0, count - 1) })).trackingId, true)
  if (r.chance(0.06)) {
    const pins = await store.pinnedMessages({ sessionId })
    const pick = pins[r.int(0, pins.length - 1)]
    if (pick !== undefined) await setPin(pick.trackingId, false)
  }
  const result = r.chance(0.05) ? await manager.reduce({ overflow: true }) : await manager.applyWindow()
  report('W', result.boundary)
}
