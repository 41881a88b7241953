/**
 * The agent of `npm run demo -- --ai-sdk`, shared by its processes: the session's configuration, the ops
 * tools (small host checks, large log dumps), the user's requests turn by turn, and one turn run as the
 * AI SDK docs show it — `generateText` with the session's window, `prepareStep` and `onStepEnd`.
 */
import { createHash } from 'node:crypto'
import { generateText, stepCountIs, tool, type LanguageModel, type ModelMessage } from 'ai'
import { z } from 'zod'
// In your project: import { openContextStore } from 'context-ledger'
import { openContextStore, type ContextStore } from '../src/index.js'
// In your project: import { ledgerSession } from 'context-ledger/ai-sdk'
import { ledgerSession, type LedgerSession } from '../src/adapters/ai-sdk/index.js'
import { jsonTokens } from './ai-sdk-demo-model.js'

/** The session id. */
export const SESSION_ID = 'payments-night'
/** Most tokens in the window (and so in any prompt the agent sends). */
export const TOKEN_BUDGET = 4_000
/** Most messages in the window. */
export const WINDOW_SIZE = 40

const HOSTS = ['web', 'api', 'db'].flatMap((kind) => [1, 2, 3, 4].map((n) => `${kind}-0${n}`))

/** The first request: the task, which the model pins. */
export const TASK =
  "Tonight's job: patch the 12 hosts of the payments cluster (web-01…04, api-01…04, db-01…04) and keep them healthy."
/** The fact the user gives early, which leaves the window long before it is asked about. */
export const FACT =
  'FYI: the change ticket for tonight is CHG-20931, approved by Dana Whitfield; rollback window closes 04:30 UTC.'
/** The question that needs recall. */
export const QUESTION = 'Before we close: what was the change ticket number, and who approved it?'

/**
 * The user's request at a turn: the task, the fact, then host checks (3 hosts a step each), log fetches
 * (one large result) and patches in turn.
 *
 * @param turn - from 0
 * @returns the request
 */
export function request(turn: number): string {
  if (turn === 0) return TASK
  if (turn === 1) return FACT
  const host = (k: number) => HOSTS[(turn + k) % HOSTS.length] ?? 'web-01'
  if (turn % 3 === 2) return `Check ${host(0)}, ${host(1)} and ${host(2)}.`
  if (turn % 3 === 0) return `Fetch the logs of ${host(0)} for the last hour.`
  return `Patch ${host(0)} and ${host(5)}.`
}

function health(host: string): string {
  const disk = (host.charCodeAt(0) * 7 + Number(host.slice(-2)) * 13) % 40
  return disk > 30 ? `degraded (disk /var ${60 + disk}%)` : `ok (disk /var ${40 + disk}%)`
}

/** The ops tools: `check_host` (~150 tokens), `fetch_logs` (~1,800 tokens), `patch_host`. */
const opsTools = {
  check_host: tool({
    description: 'Checks a host: status, disk, load, services',
    inputSchema: z.object({ host: z.string() }),
    execute: ({ host }) =>
      [
        `${host}: ${health(host)}`,
        ...['nginx', 'payments-api', 'node-exporter', 'chronyd', 'sshd'].map(
          (s) => `  ${s}: active (running)`,
        ),
        ...Array.from(
          { length: 8 },
          (_, i) => `  cpu${i} load ${((i * 0.17) % 1).toFixed(2)}, temp ${52 + i} C`,
        ),
      ].join('\n'),
  }),
  fetch_logs: tool({
    description: "Fetches a host's logs for the last hour",
    inputSchema: z.object({ host: z.string() }),
    execute: ({ host }) =>
      [
        `${host}: 90 log lines, ${Number(host.slice(-1)) + 1} errors in the last hour`,
        ...Array.from(
          { length: 90 },
          (_, i) =>
            `  02:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')} ${host} ` +
            (i % 23 === 5
              ? 'ERROR upstream timed out (110: Connection timed out)'
              : `INFO request ${1000 + i} 200 OK`),
        ),
      ].join('\n'),
  }),
  patch_host: tool({
    description: 'Applies the kernel patch to a host and reboots it',
    inputSchema: z.object({ host: z.string() }),
    execute: ({ host }) => `${host}: patched kernel 6.8.0-41 → 6.8.0-45, rebooted in 48 s, services up`,
  }),
}

/**
 * Opens the ledger file and the session, configured as every process of the demo configures it.
 *
 * @param file - the SQLite file
 * @param summarizer - the model that writes summaries (none: the window is only read)
 * @returns the store and the session
 */
export function openSession(
  file: string,
  summarizer?: LanguageModel,
): { store: ContextStore; session: LedgerSession } {
  const store = openContextStore(file)
  const session = ledgerSession({
    store,
    sessionId: SESSION_ID,
    windowSize: WINDOW_SIZE,
    tokenBudget: TOKEN_BUDGET,
    tokenCounter: jsonTokens,
    ...(summarizer === undefined ? {} : { summarize: { model: summarizer } }),
  })
  return { store, session }
}

/** What one turn did. */
export interface TurnResult {
  /** The model's steps (one call each). */
  readonly steps: number
  /** The tools it called, in order, with their inputs. */
  readonly toolCalls: { readonly name: string; readonly input: unknown }[]
  /** What each tool call returned, in the same order. */
  readonly toolResults: string[]
  /** Its last text. */
  readonly text: string
}

/**
 * One turn: the user's request is archived, then `generateText` runs the tool loop on the window, the
 * session archiving every step once and bounding each step's prompt.
 *
 * @param session - the session
 * @param model - the model
 * @param text - the user's request
 * @returns what the turn did
 */
export async function runTurn(
  session: LedgerSession,
  model: LanguageModel,
  text: string,
): Promise<TurnResult> {
  await session.append([{ role: 'user', content: [{ type: 'text', text }] }])
  const result = await generateText({
    model,
    tools: { ...opsTools, ...session.tools },
    messages: await session.window(),
    prepareStep: session.prepareStep,
    onStepEnd: session.onStepEnd,
    stopWhen: stepCountIs(12),
  })
  const toolCalls = result.steps.flatMap((s) =>
    s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })),
  )
  const toolResults = result.steps.flatMap((s) => s.toolResults.map((r) => String(r.output)))
  return { steps: result.steps.length, toolCalls, toolResults, text: result.text }
}

/**
 * A window's fingerprint: sha256 of its exact JSON, shortened.
 *
 * @param window - the ModelMessages
 * @returns 16 hex digits
 */
export function fingerprint(window: readonly ModelMessage[]): string {
  return createHash('sha256').update(JSON.stringify(window)).digest('hex').slice(0, 16)
}

/**
 * The window's size as the session counts it.
 *
 * @param window - the ModelMessages
 * @returns messages and tokens
 */
export function sizeOf(window: readonly ModelMessage[]): { messages: number; tokens: number } {
  return { messages: window.length, tokens: window.reduce((n, m) => n + jsonTokens(m), 0) }
}

/**
 * Formats an integer with thousands separators.
 *
 * @param n - the number
 * @returns e.g. `12,345`
 */
export function int(n: number): string {
  return n.toLocaleString('en-US')
}

/**
 * Text on one line, shortened.
 *
 * @param text - any text
 * @param width - most characters
 * @returns the line
 */
export function clip(text: string, width = 70): string {
  const flat = text.replace(/\s+/gu, ' ').trim()
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`
}
