/**
 * A stand-in for the Anthropic Messages API on 127.0.0.1, for running the real Claude Code CLI
 * (`ANTHROPIC_BASE_URL=<url>`) without a network or a key. Each `POST /v1/messages` is answered from a
 * script — a function of the request (and its index) returning text, one tool call or several parallel
 * ones — streamed as server-sent events when the request asks for a stream (the CLI always does for a
 * turn), as one JSON message otherwise. `POST /v1/messages/count_tokens` answers an estimate (4 characters
 * a token). Every request is recorded with the reply it got, so a test can assert what the model was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A content block of a Messages API message (the fields the scripts read). */
export interface ApiBlock {
  readonly type: string
  readonly text?: string
  readonly id?: string
  readonly name?: string
  readonly input?: unknown
  readonly tool_use_id?: string
  readonly content?: string | readonly ApiBlock[]
  readonly is_error?: boolean
}

/** A message of a Messages API request. */
export interface ApiMessage {
  readonly role: 'user' | 'assistant'
  readonly content: string | readonly ApiBlock[]
}

/** The parts of a Messages API request body the scripts read. */
export interface MessagesRequest {
  readonly model: string
  readonly messages: readonly ApiMessage[]
  readonly system?: string | readonly ApiBlock[]
  readonly tools?: readonly { readonly name: string; readonly description?: string }[]
  readonly stream?: boolean
  readonly max_tokens?: number
}

/** One tool call of a reply. */
export interface StandInCall {
  /** The tool's name, as the request's `tools` offer it (e.g. `mcp__calc__add`, `Agent`). */
  readonly name: string
  /** Its input. */
  readonly input: Record<string, unknown>
  /** Its `tool_use` id (default `toolu_standin_<request>_<i>`). */
  readonly id?: string
}

/** What the model answers: a text block (optional), then tool calls (optional, parallel when several). */
export interface StandInReply {
  /** A text block before the calls. */
  readonly text?: string
  /** Tool calls, in one assistant message. */
  readonly calls?: readonly StandInCall[]
}

/** Answers the `index`-th (from 0) Messages request. */
export type StandInScript = (request: MessagesRequest, index: number) => StandInReply

/** A request the stand-in answered. */
export interface RecordedRequest {
  /** The request's body. */
  readonly body: MessagesRequest
  /** What the script answered. */
  readonly reply: StandInReply
  /** The message id it was given. */
  readonly id: string
}

/** A running stand-in. */
export interface StandIn {
  /** `http://127.0.0.1:<port>`: the CLI's `ANTHROPIC_BASE_URL`. */
  readonly url: string
  /** The Messages requests so far (not count_tokens), in arrival order. */
  readonly requests: readonly RecordedRequest[]
  /** How many count_tokens requests it answered. */
  readonly countTokens: () => number
  /** Stops listening and drops open connections. */
  close(): Promise<void>
}

/** The text of a request's last user message (its text blocks joined), or `''`. */
export function lastUserText(request: MessagesRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user')
  if (last === undefined) return ''
  if (typeof last.content === 'string') return last.content
  return last.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n')
}

/** The `tool_result` blocks of a request's last message (what the model is asked to go on from). */
export function lastToolResults(request: MessagesRequest): readonly ApiBlock[] {
  const last = request.messages.at(-1)
  if (last === undefined || typeof last.content === 'string') return []
  return last.content.filter((b) => b.type === 'tool_result')
}

/** The text of a request's first user message: which conversation (main or a subagent's) it belongs to. */
export function firstUserText(request: MessagesRequest): string {
  const first = request.messages[0]
  if (first === undefined) return ''
  if (typeof first.content === 'string') return first.content
  return first.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n')
}

/** Whether the request offers a tool of that name. */
export function offers(request: MessagesRequest, name: string): boolean {
  return request.tools?.some((t) => t.name === name) ?? false
}

/** The blocks of a reply, with ids filled in. */
function blocksOf(reply: StandInReply, n: number): ApiBlock[] {
  const blocks: ApiBlock[] = []
  if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text })
  reply.calls?.forEach((c, i) =>
    blocks.push({ type: 'tool_use', id: c.id ?? `toolu_standin_${n}_${i}`, name: c.name, input: c.input }),
  )
  if (blocks.length === 0) blocks.push({ type: 'text', text: '' })
  return blocks
}

const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
}

/** Streams a reply as the Messages API's server-sent events. */
function stream(res: ServerResponse, id: string, model: string, blocks: readonly ApiBlock[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  }
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null }
  event('message_start', {
    message: { ...message, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  })
  for (const [index, b] of blocks.entries()) {
    if (b.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } })
      event('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } })
    } else {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      })
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      })
    }
    event('content_block_stop', { index })
  }
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } })
  event('message_stop', {})
  res.end()
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of req) body += String(chunk)
  return body
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

const apiError = (message: string) => ({ type: 'error', error: { type: 'api_error', message } })

/** What the server keeps between requests. */
interface State {
  readonly script: StandInScript
  readonly requests: RecordedRequest[]
  counted: number
}

/** Answers one HTTP request. */
async function handle(req: IncomingMessage, res: ServerResponse, state: State): Promise<void> {
  const raw = await readBody(req)
  const path = (req.url ?? '').split('?')[0] ?? ''
  if (req.method !== 'POST' || !path.startsWith('/v1/messages')) {
    json(res, 404, { type: 'error', error: { type: 'not_found_error', message: path } })
    return
  }
  if (path === '/v1/messages/count_tokens') {
    state.counted++
    json(res, 200, { input_tokens: Math.ceil(raw.length / 4) })
    return
  }
  const body = JSON.parse(raw) as MessagesRequest
  const n = state.requests.length
  const id = `msg_standin_${n}`
  let reply: StandInReply
  try {
    reply = state.script(body, n)
  } catch (error) {
    json(res, 500, apiError(String(error)))
    return
  }
  state.requests.push({ body, reply, id })
  const blocks = blocksOf(reply, n)
  if (body.stream === true) {
    stream(res, id, body.model, blocks)
    return
  }
  const stop_reason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  const message = { id, type: 'message', role: 'assistant', model: body.model, content: blocks }
  json(res, 200, { ...message, stop_reason, stop_sequence: null, usage })
}

/**
 * Starts a stand-in on 127.0.0.1 (a free port).
 *
 * @param script - answers each Messages request; a throw becomes a 500 the CLI retries or reports
 * @returns the running stand-in
 */
export async function startStandIn(script: StandInScript): Promise<StandIn> {
  const state: State = { script, requests: [], counted: 0 }
  const server = createServer((req, res) => {
    handle(req, res, state).catch((error: unknown) => {
      if (res.headersSent) res.destroy()
      else json(res, 500, apiError(String(error)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    countTokens: () => state.counted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}

/**
 * The environment the CLI runs with against a stand-in: its URL, a dummy key, a config folder of the
 * test's own (so no local transcript or setting of the machine's user is read), and no telemetry,
 * update check or other traffic to the outside.
 *
 * @param url - the stand-in's URL
 * @param configDir - a fresh folder for `CLAUDE_CONFIG_DIR`
 * @returns the `env` option of `query()`
 */
export function standInEnv(url: string, configDir: string): Record<string, string | undefined> {
  return {
    ...process.env,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'stand-in-key',
    CLAUDE_CONFIG_DIR: configDir,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }
}
