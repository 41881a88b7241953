/**
 * Worker of claude-agent-e2e.test.ts (both backends): one of two processes appending to one Claude Agent
 * SDK session at once through `LedgerSessionStore` (from src/, run by tsx). Its entries are
 * bench/claude-agent-fixtures.ts's, with its own tag, so the parent makes the same ones to compare; a
 * batch listed in `resend` is appended a second time right after the first, as the SDK retries a batch
 * whose answer it lost. Prints `ready`, waits for a line on stdin, then `sent <i>` after each batch and
 * `done`.
 *
 * Usage: `node --import tsx claude-agent-appender.ts '<AppenderArgs as JSON>'`.
 */
import { createInterface } from 'node:readline'
import { ClaudeEntries } from '../../../bench/claude-agent-fixtures.js'
import { openSessions, type AppenderArgs } from '../../helpers/claude-ledger.js'
import { report } from './worker-kit.js'

const args = JSON.parse(process.argv[2] ?? '{}') as AppenderArgs
const { ledger, sessions } = await openSessions(args.location)
const entries = new ClaudeEntries(args.key.sessionId, args.tag)
const batches = args.sizes.map((n) => entries.next(n))
report('ready')
await new Promise<void>((resolve) => {
  createInterface({ input: process.stdin }).once('line', () => {
    resolve()
  })
})
try {
  for (const [i, batch] of batches.entries()) {
    await sessions.append(args.key, batch)
    if (args.resend.includes(i)) await sessions.append(args.key, batch)
    report('sent', i)
  }
} finally {
  await ledger.close()
}
report('done')
