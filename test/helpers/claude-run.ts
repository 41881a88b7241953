/**
 * Running the real Claude Code CLI through the SDK's `query()` against the stand-in Messages API: the
 * in-process MCP server with the scripted model's tools, the options every run shares (the CLI binary,
 * the stand-in's environment with a fresh `CLAUDE_CONFIG_DIR`, the session store, the tools), and a
 * loop that runs a query to its end and keeps what it yielded.
 */
import {
  createSdkMcpServer,
  query,
  tool,
  type Options,
  type SDKMessage,
  type SessionStore,
} from '@anthropic-ai/claude-agent-sdk'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { CALC, SUBAGENT } from './claude-model.js'
import { standInEnv } from './claude-stand-in.js'

/** A gate `slow_add` waits at, and a signal that a call reached it: a tool call in flight, to interrupt. */
export class SlowGate {
  /** Resolves when a `slow_add` call is waiting at the gate. */
  readonly started: Promise<void>
  /** Resolves when the gate opens. */
  readonly opened: Promise<void>
  private arrived: () => void = () => {}
  private opener: () => void = () => {}

  constructor() {
    this.started = new Promise((resolve) => (this.arrived = resolve))
    this.opened = new Promise((resolve) => (this.opener = resolve))
  }

  /** Called by `slow_add`: says it arrived, then waits for the gate. */
  async pass(): Promise<void> {
    this.arrived()
    await this.opened
  }

  /** Lets the waiting calls finish. */
  open(): void {
    this.opener()
  }
}

/** The in-process MCP server `calc`: `add(a, b)` and `slow_add(a, b)` (waits at the gate first). */
export function calcServer(gate?: SlowGate): ReturnType<typeof createSdkMcpServer> {
  const shape = { a: z.number(), b: z.number() }
  const answer = (a: number, b: number) => ({ content: [{ type: 'text' as const, text: String(a + b) }] })
  return createSdkMcpServer({
    name: CALC.server,
    version: '1.0.0',
    tools: [
      tool('add', 'Add two numbers', shape, ({ a, b }) => Promise.resolve(answer(a, b))),
      tool('slow_add', 'Add two numbers, slowly', shape, async ({ a, b }) => {
        await gate?.pass()
        return answer(a, b)
      }),
    ],
  })
}

/** What a run needs. */
export interface RunSetup {
  /** The CLI binary (test/helpers/claude-cli.ts). */
  readonly cli: string
  /** The stand-in's URL. */
  readonly url: string
  /** The project folder the CLI runs in (the SDK derives `projectKey` from it). */
  readonly cwd: string
  /** The session store under test. */
  readonly sessionStore: SessionStore
  /** A folder to make each run's fresh `CLAUDE_CONFIG_DIR` in. */
  readonly scratch: string
  /** The gate of `slow_add`, when a test uses it. */
  readonly gate?: SlowGate
}

/**
 * The options of one `query()`: a fresh `CLAUDE_CONFIG_DIR` each time, so what resumes a session is the
 * store and never a local JSONL file; only the calc tools and the subagent tool; the `calculator`
 * subagent, which may use `add`.
 *
 * @param setup - the run's parts
 * @param extra - more options (`resume`, `forkSession`, ...)
 * @returns the options
 */
export function runOptions(setup: RunSetup, extra: Options = {}): Options {
  return {
    pathToClaudeCodeExecutable: setup.cli,
    env: standInEnv(setup.url, mkdtempSync(join(setup.scratch, 'config-'))),
    sessionStore: setup.sessionStore,
    cwd: setup.cwd,
    model: 'claude-sonnet-4-5',
    tools: ['Agent'],
    mcpServers: { [CALC.server]: calcServer(setup.gate) },
    allowedTools: ['Agent', CALC.add, CALC.slowAdd],
    agents: {
      [SUBAGENT]: {
        description: 'Adds numbers',
        prompt: 'You add numbers with the add tool.',
        tools: [CALC.add],
      },
    },
    settingSources: [],
    ...extra,
  }
}

/** What a finished query yielded. */
export interface RunResult {
  /** The session id the CLI reported. */
  readonly sessionId: string
  /** Every message, in order. */
  readonly messages: SDKMessage[]
}

/**
 * Runs one query to its end.
 *
 * @param prompt - the prompt (or a stream of user messages)
 * @param options - from {@link runOptions}
 * @returns its session id and messages
 */
export async function runQuery(
  prompt: Parameters<typeof query>[0]['prompt'],
  options: Options,
): Promise<RunResult> {
  const messages: SDKMessage[] = []
  let sessionId = ''
  for await (const m of query({ prompt, options })) {
    messages.push(m)
    if ('session_id' in m && typeof m.session_id === 'string' && m.session_id !== '') sessionId = m.session_id
  }
  return { sessionId, messages }
}
