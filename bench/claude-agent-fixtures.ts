/**
 * Realistic Claude Code transcript entries, as many as a bench or a test wants, made from a transcript
 * recorded from the real CLI (test/fixtures/claude-agent/cli-tool-call-resume-compact.json): its
 * follow-up turn — queue operations, the prompt, an attachment, the assistant's text and `tool_use`
 * (separate entries sharing `message.id`), the `tool_result`, an attachment, the answer, `last-prompt`,
 * `mode`, `cost-state`: 12 entries, every field the CLI writes — repeated with fresh uuids, tool ids and
 * message ids, each turn's prompt chained to the previous turn's answer by `parentUuid`. The stand-in
 * model's texts were a few words; here the tool result carries ~1 KB and the answer ~400 characters, as a
 * real session's do, so an entry averages about 0.8 KB of JSON.
 */
import { readFileSync } from 'node:fs'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'

/** Entries per generated turn. */
export const ENTRIES_PER_TURN = 12

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

interface Recorded {
  readonly sessionId: string
  readonly appends: readonly { readonly entries: SessionStoreEntry[] }[]
}

/** The recorded follow-up turn (appends 2 and 3 of the fixture) and its session id. */
function template(): { readonly json: string; readonly sessionId: string } {
  const url = new URL('../test/fixtures/claude-agent/cli-tool-call-resume-compact.json', import.meta.url)
  const recorded = JSON.parse(readFileSync(url, 'utf8')) as Recorded
  const turn = [...(recorded.appends[2]?.entries ?? []), ...(recorded.appends[3]?.entries ?? [])]
  if (turn.length !== ENTRIES_PER_TURN || turn[2]?.type !== 'user')
    throw new Error('the recorded follow-up turn is not the 12 entries this generator expects')
  return { json: JSON.stringify(turn), sessionId: recorded.sessionId }
}

type Block = {
  type: string
  text?: string
  id?: string
  input?: unknown
  tool_use_id?: string
  content?: unknown
}
type Message = { id?: string; content: string | Block[] }

const blocksOf = (entry: SessionStoreEntry): Block[] => {
  const content = (entry.message as Message | undefined)?.content
  return Array.isArray(content) ? content : []
}

/** A deterministic uuid: the writer's tag, then a counter. */
const uuidOf = (tag: number, n: number): string =>
  `${tag.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

/** Generates a session's entries, turn after turn. */
export class ClaudeEntries {
  private static cached: ReturnType<typeof template> | undefined
  private readonly tpl = (ClaudeEntries.cached ??= template())
  private turn = 0
  private ids = 0
  private last: string | null = null

  /**
   * @param sessionId - the session the entries say they belong to
   * @param tag - a number of this generator's own: two generators with different tags never make the same
   *   uuid or tool id (for several writers of one session)
   */
  constructor(
    private readonly sessionId: string,
    private readonly tag = 1,
  ) {}

  /**
   * The next `n` entries (whole turns, the last one cut at `n`).
   *
   * @param n - how many
   * @returns the entries, oldest first
   */
  next(n: number): SessionStoreEntry[] {
    const out: SessionStoreEntry[] = []
    while (out.length < n) out.push(...this.nextTurn().slice(0, n - out.length))
    return out
  }

  /** One more turn of {@link ENTRIES_PER_TURN} entries. */
  nextTurn(): SessionStoreEntry[] {
    const k = this.turn++
    const fresh = new Map<string, string>([[this.tpl.sessionId, this.sessionId]])
    const json = this.tpl.json.replace(UUID, (u) => {
      let v = fresh.get(u)
      if (v === undefined) fresh.set(u, (v = uuidOf(this.tag, this.ids++)))
      return v
    })
    const entries = JSON.parse(json) as SessionStoreEntry[]
    this.rewrite(entries, k)
    this.last = entries.findLast((e) => e.type === 'assistant')?.uuid ?? this.last
    return entries
  }

  /** The turn's own prompt, numbers, result, answer and ids; its prompt chained to the previous answer. */
  private rewrite(entries: SessionStoreEntry[], k: number): void {
    const [a, b] = [(k * 7919 + this.tag) % 1000, (k * 104_729) % 997]
    const prompt = `Turn ${k} of writer ${this.tag}: what is ${a} + ${b}, and how does the result compare?`
    const result = `${a + b}\n${Array.from({ length: 24 }, (_, i) => `row ${i}: ${(a * i + b) % 9973} units`).join('\n')}`
    const answer = `Results: ${a} + ${b} = ${a + b}. ${'The tool listed every row; the totals agree with the sum. '.repeat(6)}`
    const toolId = `toolu_${this.tag}_${k}`
    const firstUser = entries.find((e) => e.type === 'user')
    if (firstUser !== undefined) firstUser.parentUuid = this.last
    for (const e of entries) {
      // A turn a minute after the recorded one, and one a minute after that, ...
      if (typeof e.timestamp === 'string')
        e.timestamp = new Date(Date.parse(e.timestamp) + k * 60_000).toISOString()
      const message = e.message as Message | undefined
      if (message?.id !== undefined) message.id = `msg_${this.tag}_${k}_${message.id.slice(-1)}`
      for (const block of blocksOf(e)) {
        if (block.type === 'text' && e.type === 'user') block.text = prompt
        if (block.type === 'text' && e.type === 'assistant' && block.text?.startsWith('Results') === true)
          block.text = answer
        if (block.type === 'tool_use') Object.assign(block, { id: toolId, input: { a, b } })
        if (block.type === 'tool_result')
          Object.assign(block, { tool_use_id: toolId, content: [{ type: 'text', text: result }] })
      }
      if (e.type === 'user' && e.toolUseResult !== undefined)
        e.toolUseResult = [{ type: 'text', text: result }]
      if (e.type === 'last-prompt') e.lastPrompt = prompt
    }
  }
}
