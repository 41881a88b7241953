/**
 * The second process of `npm run demo -- --ai-sdk`: a fresh Node process opens the ledger file with a new
 * store and a new `ledgerSession`, reads the window the next model call would get, and checks it is the
 * one the first process saw before it closed the file (exit 1 if not).
 *
 *   npx tsx examples/ai-sdk-demo-resume.ts <file> [expected fingerprint]
 */
import { fingerprint, int, openSession, sizeOf } from './ai-sdk-demo-agent.js'

const [file, expected] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: ai-sdk-demo-resume <ledger file> [expected fingerprint]')
const { store, session } = openSession(file)
const window = await session.window()
const { messages, tokens } = sizeOf(window)
const now = fingerprint(window)
const same = expected === undefined || now === expected
console.log(
  `  process 2 (pid ${process.pid}): window ${messages} messages, ${int(tokens)} tokens, fingerprint ${now}`,
)
console.log(`  the same window as before the restart: ${same ? 'yes' : 'NO'}`)
store.close()
if (!same) process.exitCode = 1
