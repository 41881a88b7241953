/**
 * `npx tsx examples/claude-agent-fork.ts [path/to/agent.db]`
 *
 * Branching a Claude Agent SDK conversation in the ledger without copying it. A two-turn session runs
 * with `LedgerSessionStore`; then
 * - `forkSession` (of `context-ledger/claude-agent-sdk`) forks it after its first answer, and the fork is
 *   resumed with another prompt: the CLI sees the first turn, never the second;
 * - `query()` resumes the session with `forkSession: true`: the CLI's copy of it is recognised and kept
 *   as a ledger fork too.
 * The demo prints the tree of ledger sessions, what each transcript holds and how many rows the ledger
 * wrote for all of them — fewer than the transcripts' entries, since the forks share their parent's.
 *
 * Needs the SDK's CLI and a key (`ANTHROPIC_API_KEY`), or `ANTHROPIC_BASE_URL` pointing at a compatible
 * server; `CLAUDE_CODE_PATH=/path/to/claude` names the CLI when the SDK's own is not installed. The CLI
 * writes its own JSONL under a temporary `CLAUDE_CONFIG_DIR`, so what resumes a session is the ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { query, type Options } from '@anthropic-ai/claude-agent-sdk'
import { openContextStore } from '../src/index.js'
import { forkSession, LedgerSessionStore, projectKeyOf } from '../src/adapters/claude-agent-sdk/index.js'

const scratch = mkdtempSync(join(tmpdir(), 'claude-agent-fork-'))
const path = resolve(process.argv[2] ?? join(scratch, 'agent.db'))
const store = openContextStore(path)
const sessionStore = new LedgerSessionStore({ store })
const projectKey = projectKeyOf(process.cwd())

/** Runs one prompt to its end; returns the session id and the answer. */
async function ask(prompt: string, extra: Options = {}): Promise<{ sessionId: string; answer: string }> {
  const options: Options = {
    sessionStore,
    env: { ...process.env, CLAUDE_CONFIG_DIR: mkdtempSync(join(scratch, 'config-')) },
    settingSources: [],
    ...(process.env.CLAUDE_CODE_PATH === undefined
      ? {}
      : { pathToClaudeCodeExecutable: process.env.CLAUDE_CODE_PATH }),
    ...extra,
  }
  let sessionId = ''
  let answer = ''
  for await (const message of query({ prompt, options })) {
    if (message.type === 'system' && message.subtype === 'mirror_error') throw new Error(message.error)
    if (message.type === 'result') {
      sessionId = message.session_id
      if (message.subtype === 'success') answer = message.result
    }
  }
  return { sessionId, answer }
}

/** The ledger id of a session of this folder. */
const ledgerId = (sessionId: string): string => sessionStore.sessionIdOf({ projectKey, sessionId })

try {
  const first = await ask('Pick a name for a cat.')
  await ask('Now pick one for a dog.', { resume: first.sessionId })
  const root = first.sessionId
  const entries = (await sessionStore.load({ projectKey, sessionId: root })) ?? []
  const firstAnswer = entries.find((e) => e.type === 'assistant')?.uuid
  if (firstAnswer === undefined) throw new Error('the first turn wrote no answer')

  const fork = await forkSession(root, { upToMessageId: firstAnswer, sessionStore })
  const onFork = await ask('Make the cat name shorter.', { resume: fork.sessionId })
  console.log(`forkSession: ${fork.sessionId} answered "${onFork.answer}"`)
  const resumed = await ask('Or a name for a fish?', { resume: root, forkSession: true })
  console.log(`resume with forkSession: ${resumed.sessionId} answered "${resumed.answer}"`)

  console.log('\nThe ledger sessions, as a tree:')
  let transcripts = 0
  for (const branch of store.branches(ledgerId(root))) {
    const sdkId = branch.sessionId.split('/').at(-1) ?? ''
    const loaded = (await sessionStore.load({ projectKey, sessionId: sdkId })) ?? []
    transcripts += loaded.length
    const fork = branch.parentId === null ? 'root' : `fork at seq ${String(branch.forkSeq)}`
    console.log(
      `${'  '.repeat(branch.depth)}${sdkId}  ${fork}: ${loaded.length} entries, ${branch.ownMessages} rows of its own`,
    )
  }
  const rows = Number(store.connection().prepare('SELECT count(*) FROM messages').pluck().get())
  console.log(`\n${transcripts} entries in the transcripts, ${rows} rows in the ledger`)
  console.log(`rows shared, not copied: ${rows < transcripts ? 'yes' : 'no'}`)
} finally {
  store.close()
  rmSync(scratch, { recursive: true, force: true })
}
