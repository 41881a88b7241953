/**
 * A stand-in for the SDK's `query()` for the doc tests, which run without the SDK's native CLI (the
 * end-to-end test runs the real one): it does to `options.sessionStore` what the SDK did while its CLI
 * answered `What is 40 + 2?` (test/fixtures/claude-agent/cli-tool-call.json) — `load` first when
 * resuming, then every batch the SDK appended, under the project key the SDK derives from the cwd — and
 * yields the run's `result` message. The SDK's session functions the docs call besides `query()` are
 * the SDK's own.
 */
import { realpathSync } from 'node:fs'
import type { SDKMessage, SessionStore } from '@anthropic-ai/claude-agent-sdk'
import { readFixture } from '../helpers/claude-fixtures.js'

export { getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk'

const recording = readFixture('tool-call')

/** The recorded session's id. */
export const SESSION_ID = recording.sessionId

/** What the recorded run answered. */
export const RESULT = 'Results: 42.'

/**
 * The project key the SDK derives from a folder.
 *
 * @param dir - the folder
 * @returns its key
 */
export const projectKeyOf = (dir: string): string => realpathSync(dir).replace(/[^a-zA-Z0-9]/g, '-')

/**
 * Runs the recorded turn through the store as the SDK did.
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
  if (store !== undefined) for (const { entries } of recording.appends) await store.append(key, entries)
  yield { type: 'result', subtype: 'success', result: RESULT, session_id: SESSION_ID } as SDKMessage
}
