/**
 * A stand-in for the SDK's `query()` for the doc tests, which run without the SDK's native CLI (the
 * end-to-end test runs the real one): it does to `options.sessionStore` what the SDK does while its CLI
 * answers `What is 40 + 2?` — mirrors the transcript recorded from the real CLI
 * (test/fixtures/claude-agent/tool-call.json) under the project key the SDK derives from the cwd, in the
 * batches of its turn, after `load` when resuming — and yields the run's `result` message.
 */
import { readFileSync, realpathSync } from 'node:fs'
import type { SDKMessage, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'

const transcript = JSON.parse(
  readFileSync(new URL('../fixtures/claude-agent/tool-call.json', import.meta.url), 'utf8'),
) as SessionStoreEntry[]

/** The recorded session's id. */
export const SESSION_ID = '93343d98-4814-4d1a-bf29-e5c21c5b05ee'

/**
 * The project key the SDK derives from a folder.
 *
 * @param dir - the folder
 * @returns its key
 */
export const projectKeyOf = (dir: string): string => realpathSync(dir).replace(/[^a-zA-Z0-9]/g, '-')

/**
 * Runs the recorded turn through the store as the SDK would.
 *
 * @param params - the prompt, and options with the `sessionStore`
 * @param params.options - `sessionStore`, `cwd`, `resume`
 * @yields the run's result
 */
export async function* query(params: {
  prompt: string
  options?: { sessionStore?: SessionStore; cwd?: string; resume?: string }
}): AsyncGenerator<SDKMessage> {
  const store = params.options?.sessionStore
  const key = { projectKey: projectKeyOf(params.options?.cwd ?? process.cwd()), sessionId: SESSION_ID }
  if (store !== undefined && params.options?.resume !== undefined) await store.load(key)
  // The CLI's mirror flushes mid-turn and at the end of the turn.
  if (store !== undefined)
    for (const batch of [transcript.slice(0, 11), transcript.slice(11)]) await store.append(key, batch)
  yield {
    type: 'result',
    subtype: 'success',
    result: 'The answer is 42.',
    session_id: SESSION_ID,
  } as SDKMessage
}
