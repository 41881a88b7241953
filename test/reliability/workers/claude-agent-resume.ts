/**
 * Worker of claude-agent-e2e.test.ts (both backends): a second process resuming a Claude Agent SDK
 * session from the ledger. Opens the ledger, puts a `LedgerSessionStore` (from src/, run by tsx) behind a
 * recording store, and runs each prompt as a real `query()` with `resume: sessionId` and a fresh
 * `CLAUDE_CONFIG_DIR` (so no local JSONL file can be what resumes it), against the parent's stand-in
 * Messages API. Prints every batch its CLI handed the store (`append <json>`), the store reads it made
 * (`reads <json>`), then `done`.
 *
 * Usage: `node --import tsx claude-agent-resume.ts '<ResumeArgs as JSON>'`.
 */
import { RecordingSessionStore } from '../../helpers/claude-recording-store.js'
import { runOptions, runQuery } from '../../helpers/claude-run.js'
import { openSessions, type ResumeArgs } from '../../helpers/claude-ledger.js'
import { report } from './worker-kit.js'

const args = JSON.parse(process.argv[2] ?? '{}') as ResumeArgs
const { ledger, sessions } = await openSessions(args.location)
try {
  const recording = new RecordingSessionStore(sessions)
  const setup = {
    cli: args.cli,
    url: args.url,
    cwd: args.cwd,
    sessionStore: recording,
    scratch: args.scratch,
  }
  for (const prompt of args.prompts) {
    const { sessionId } = await runQuery(prompt, runOptions(setup, { resume: args.sessionId }))
    report('session', sessionId)
  }
  for (const batch of recording.appends) report('append', JSON.stringify(batch))
  report('reads', JSON.stringify(recording.reads))
} finally {
  await ledger.close()
}
report('done')
