/**
 * One process of the contention bench (`bench/contention.ts`): a writer, a pinner or a reader, calling
 * the store in a tight loop on a file shared with the others until its deadline, timing every call.
 *
 *   - writer `i`: one agent turn (4 messages, one `append()`) to its own session `own-i`, `applyWindow()`
 *     there, one turn to the `shared` session, `applyWindow()` there, and again;
 *   - pinner: `session()` of a random session, then pins a random message of it — or, once it holds
 *     `maxPins` pins in that session, unpins one of its own;
 *   - reader: `window()`, `session()` and `history()` (100 from a random seq) of a random session, then
 *     `sessions()`.
 *
 * Protocol: prints `R` once the store is open, waits for a line on stdin, runs for `durationMs`, then
 * writes its {@link WorkerReport} as JSON to `<db>.<role>-<index>.json`, prints `D` and exits. Every call's error is counted, never thrown.
 *
 * Usage: `node --import tsx bench/contention-worker.ts <role> <db> <index> <seed> <durationMs> <writers> <maxPins>`
 */
import { writeFileSync, writeSync } from 'node:fs'
import { isContextLedgerError, openContextStore, PersistentConversationManager } from '../src/index.js'
import { prng, TurnFactory } from './fixtures.js'
import { wchar } from './machine.js'

/** Roles a worker can play. */
export type Role = 'writer' | 'pinner' | 'reader'

/** What a worker prints when done. */
export interface WorkerReport {
  /** Its role. */
  readonly role: Role
  /** Its index within the role. */
  readonly index: number
  /** Latency in ms of every call, by operation name. */
  readonly ops: Record<string, number[]>
  /** Failed calls by error code (`DATABASE_BUSY`, …). */
  readonly errors: Record<string, number>
  /** First error message per code, to show what went wrong. */
  readonly samples: Record<string, string>
  /** TrackingIds of acknowledged messages, by session (writers only). */
  readonly acked: Record<string, string[]>
  /** Bytes this process wrote (`wchar` of /proc/self/io), undefined where /proc is missing. */
  wchar: number | undefined
}

const WINDOW = 40

function send(line: string): void {
  const bytes = Buffer.from(`${line}\n`)
  for (let off = 0; off < bytes.length;) off += writeSync(1, bytes, off)
}

function main(): void {
  const [roleArg, path, indexArg, seedArg, durationArg, writersArg, maxPinsArg] = process.argv.slice(2)
  if (
    (roleArg !== 'writer' && roleArg !== 'pinner' && roleArg !== 'reader') ||
    path === undefined ||
    maxPinsArg === undefined
  )
    throw new Error(
      'usage: contention-worker <writer|pinner|reader> <db> <index> <seed> <durationMs> <writers> <maxPins>',
    )
  const role: Role = roleArg
  const index = Number(indexArg)
  const durationMs = Number(durationArg)
  const writers = Number(writersArg)
  const maxPins = Number(maxPinsArg)
  const random = prng(Number(seedArg) * 7919 + index * 31 + role.length)
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1))

  const store = openContextStore(path)
  const sessionIds = ['shared', ...Array.from({ length: writers }, (_, i) => `own-${i}`)]
  const report: WorkerReport = { role, index, ops: {}, errors: {}, samples: {}, acked: {}, wchar: undefined }

  /** Times one call; an error is counted under its code and yields undefined. */
  function call<T>(op: string, fn: () => T): T | undefined {
    const t = performance.now()
    try {
      return fn()
    } catch (error) {
      const code = isContextLedgerError(error) ? error.code : 'UNEXPECTED'
      report.errors[code] = (report.errors[code] ?? 0) + 1
      report.samples[code] ??= error instanceof Error ? error.message : String(error)
      return undefined
    } finally {
      ;(report.ops[op] ??= []).push(performance.now() - t)
    }
  }

  let step: () => void
  if (role === 'writer') {
    const managers = [`own-${index}`, 'shared'].map(
      (sessionId) => new PersistentConversationManager({ store, sessionId, windowSize: WINDOW }),
    )
    const turns = new TurnFactory(`w${index}`, 100 + index)
    let n = 0
    step = () => {
      for (const m of managers) {
        const turn = turns.turn().map((message) => ({ ...message, trackingId: `w${index}.${n++}` }))
        if (call('append', () => m.append(turn)) !== undefined)
          (report.acked[m.sessionId] ??= []).push(...turn.map((t) => t.trackingId))
        call('applyWindow', () => m.applyWindow())
      }
    }
  } else if (role === 'pinner') {
    const mine = new Map<string, number[]>(sessionIds.map((s) => [s, []]))
    step = () => {
      const sessionId = sessionIds[int(0, sessionIds.length - 1)] as string
      const count = call('session', () => store.session(sessionId))?.messageCount ?? 0
      if (count === 0) return
      const manager = new PersistentConversationManager({ store, sessionId, windowSize: WINDOW })
      const pins = mine.get(sessionId) as number[]
      if (pins.length < maxPins) {
        const seq = int(0, count - 1)
        if (call('pin', () => manager.pin({ seq }, { actor: `pinner-${index}` })) !== undefined)
          pins.push(seq)
      } else {
        const [seq] = pins.splice(int(0, pins.length - 1), 1)
        call('unpin', () => manager.unpin({ seq: seq as number }, { actor: `pinner-${index}` }))
      }
    }
  } else {
    step = () => {
      const sessionId = sessionIds[int(0, sessionIds.length - 1)] as string
      call('window', () => store.window(sessionId))
      const count = call('session', () => store.session(sessionId))?.messageCount ?? 0
      call('history', () => store.history(sessionId, { fromSeq: int(0, Math.max(0, count - 1)), limit: 100 }))
      call('sessions', () => store.sessions())
    }
  }

  send('R')
  process.stdin.once('data', () => {
    const before = wchar()
    const deadline = performance.now() + durationMs
    while (performance.now() < deadline) step()
    store.close()
    const after = wchar()
    report.wchar = before === undefined || after === undefined ? undefined : after - before
    // A file, not the pipe: the report holds every latency, more than a pipe takes without blocking.
    writeFileSync(`${path}.${role}-${index}.json`, JSON.stringify(report))
    send('D')
    process.exit(0)
  })
}

main()
