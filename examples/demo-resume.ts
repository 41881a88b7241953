/**
 * The second half of `npm run demo`, run in a fresh Node process: reopen the ledger file and report what
 * a user wants to know — archive size, window size and tokens, pinned messages — and check that the
 * window materialized here is byte-identical to the one the writing process saw before it closed.
 *
 * Standalone: `npx tsx examples/demo-resume.ts demo.db` (without `--expect-*` it only reports).
 */
import { statSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { openContextStore, PersistentConversationManager } from '../src/index.js'
import { fingerprint, int, SESSION_ID, summarizeMessage, WINDOW_OPTIONS } from './demo-shared.js'

function fileBytes(path: string): number {
  let total = 0
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(path + suffix).size
    } catch {
      // no WAL left after a clean close
    }
  }
  return total
}

function clock(d: Date): string {
  return d.toISOString().replace('T', ' ').slice(0, 23)
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { 'expect-ids': { type: 'string' }, 'expect-json': { type: 'string' } },
    allowPositionals: true,
  })
  const path = positionals[0]
  if (path === undefined)
    throw new Error('usage: demo-resume <ledger file> [--expect-ids H] [--expect-json H]')
  const expectIds = values['expect-ids']
  const expectJson = values['expect-json']

  const t0 = performance.now()
  const store = openContextStore(path)
  const manager = new PersistentConversationManager({ store, sessionId: SESSION_ID, ...WINDOW_OPTIONS })
  const t1 = performance.now()
  const window = manager.window()
  const t2 = performance.now()

  const session = store.session(SESSION_ID)
  if (session === undefined) {
    console.log(
      `${path} holds no session "${SESSION_ID}"; sessions: ${
        store
          .sessions()
          .map((s) => s.id)
          .join(', ') || 'none'
      }`,
    )
    store.close()
    process.exitCode = 1
    return
  }
  const bytes = fileBytes(path)
  console.log(
    `[pid ${process.pid}] reopened ${path}: open ${(t1 - t0).toFixed(1)} ms, window() ${(t2 - t1).toFixed(1)} ms`,
  )
  console.log(
    `archive: ${int(session.messageCount)} messages, ${int(session.totalTokens)} tokens, ` +
      `${(bytes / 2 ** 20).toFixed(1)} MiB on disk (${int(Math.round(bytes / session.messageCount))} B per message); ` +
      `${store.sessions().length} session(s) in the file`,
  )
  console.log(
    `window:  ${session.windowMessages} messages, ${int(session.windowTokens)} tokens ` +
      `(limits ${WINDOW_OPTIONS.windowSize} messages / ${int(WINDOW_OPTIONS.tokenBudget)} tokens); ` +
      `tail starts at seq ${int(session.boundary)}`,
  )

  const pinned = store.pinnedMessages({ sessionId: SESSION_ID })
  const events = store.pinEvents(SESSION_ID)
  console.log(`\npinned messages: ${pinned.length} (pin log: ${events.length} events)`)
  for (const p of pinned)
    console.log(
      `  seq ${String(p.seq).padStart(6)}  ${p.actor.padEnd(6)}  ${clock(p.pinnedAt)}  ${p.inWindow ? 'in window' : 'NOT IN WINDOW'}  ` +
        `"${p.reason ?? ''}"\n${' '.repeat(15)}${summarizeMessage(p.message, 90)}`,
    )
  for (const e of events.filter((e) => e.action === 'unpin'))
    console.log(`  (seq ${e.seq} was unpinned by ${e.actor} at ${clock(e.at)}: "${e.reason ?? ''}")`)

  const now = fingerprint(window)
  if (expectIds !== undefined && expectJson !== undefined) {
    const same = now.ids === expectIds && now.json === expectJson
    console.log(
      `\nwindow identical after restart: ${same ? 'yes' : 'NO'} ` +
        `(${window.length} trackingIds in the same order: ${now.ids === expectIds ? 'yes' : 'no'}; ` +
        `byte-identical JSON: ${now.json === expectJson ? 'yes' : 'no'})`,
    )
    if (!same) process.exitCode = 1
  }

  console.log('\nwindow excerpt (what the model sees next):')
  const shown = new Set([
    0,
    1,
    2,
    3,
    window.length - 4,
    window.length - 3,
    window.length - 2,
    window.length - 1,
  ])
  let gap = false
  for (let i = 0; i < window.length; i++) {
    if (!shown.has(i)) {
      if (!gap) console.log(`  … ${window.length - shown.size} more …`)
      gap = true
      continue
    }
    const entry = manager.message({ windowIndex: i })
    const message = window[i]
    if (message === undefined) continue
    const pin = entry.pinned ? ' (pinned)' : ''
    console.log(
      `  [${String(i).padStart(2)}] seq ${String(entry.seq).padStart(6)} ${message.role.padEnd(9)}${pin} ${summarizeMessage(message, 70)}`,
    )
  }
  store.close()
}

main()
