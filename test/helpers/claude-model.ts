/**
 * The scripted model the end-to-end tests and the fixture recorder run the real CLI against (through
 * test/helpers/claude-stand-in.ts). It reads the last user message (without the CLI's reminders) the way
 * a model would follow an instruction, deterministically:
 * - every `A + B` in the prompt is a call of the `add` tool, several in one assistant message when there
 *   are several (parallel calls); `slowly` in the prompt calls `slow_add` instead (a tool that waits);
 * - `delegate: <task>` calls the subagent tool (`Agent`) with the prompt `SUBTASK: <task>`;
 * - a subagent's own conversation (its first message says `SUBTASK`) follows the same rules;
 * - after tool results, the answer lists them: `Results: 42, 7.`;
 * - a compaction request (the CLI asks for a `<summary>` block) gets {@link COMPACT_SUMMARY};
 * - anything else (a subagent's task notification, a prompt without sums) gets a short text answer.
 */
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  offers,
  type ApiBlock,
  type MessagesRequest,
  type StandInCall,
  type StandInReply,
  type StandInScript,
} from './claude-stand-in.js'

/** The MCP server the tools live on, and their names as the CLI offers them. */
export const CALC = { server: 'calc', add: 'mcp__calc__add', slowAdd: 'mcp__calc__slow_add' } as const

/** The subagent the `delegate:` prompts go to (defined through `query()`'s `agents` option). */
export const SUBAGENT = 'calculator'

/** The text of the summary the scripted model writes when the CLI compacts. */
export const COMPACT_SUMMARY = 'The user asked for sums; the add tool answered each one.'

/** Text without the CLI's `<system-reminder>` blocks (which it appends to prompts and tool results). */
const withoutReminders = (text: string): string =>
  text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim()

/** What the model is told by the last user message, without the CLI's reminders. */
export function promptOf(request: MessagesRequest): string {
  return withoutReminders(lastUserText(request))
}

/** The text of a tool result's content, its first line, without the CLI's reminders. */
function resultText(block: ApiBlock): string {
  const c = block.content
  const text = typeof c === 'string' ? c : (c ?? []).map((b) => b.text ?? '').join('')
  return withoutReminders(text).split('\n')[0]?.trim().slice(0, 80) ?? ''
}

/** The `add` calls a prompt asks for: one per `A + B`. */
function sums(prompt: string, tool: string): StandInCall[] {
  return [...prompt.matchAll(/(\d+)\s*\+\s*(\d+)/g)].map((m) => ({
    name: tool,
    input: { a: Number(m[1]), b: Number(m[2]) },
  }))
}

/** Options of {@link calcModel}. */
export interface CalcModelOptions {
  /** The subagent runs in the background (the CLI's default) instead of answering in its tool result. */
  readonly background?: boolean
}

/**
 * The scripted model.
 *
 * @param options - how it delegates
 * @returns the stand-in's script
 */
export function calcModel(options: CalcModelOptions = {}): StandInScript {
  return (request: MessagesRequest): StandInReply => {
    const text = lastUserText(request)
    if (text.includes('<summary></summary>') || text.includes('a <summary> block'))
      return { text: `<analysis>Sums.</analysis>\n<summary>${COMPACT_SUMMARY}</summary>` }
    const prompt = promptOf(request)
    const sub = firstUserText(request).includes('SUBTASK')
    const delegate = /delegate:\s*(.+)$/s.exec(prompt)
    if (!sub && delegate?.[1] !== undefined && offers(request, 'Agent'))
      return {
        text: 'Asking the calculator.',
        calls: [
          {
            name: 'Agent',
            input: {
              description: 'compute sums',
              prompt: `SUBTASK: ${delegate[1]}`,
              subagent_type: SUBAGENT,
              run_in_background: options.background === true,
            },
          },
        ],
      }
    const tool = prompt.includes('slowly') ? CALC.slowAdd : CALC.add
    const calls = offers(request, tool) && !prompt.includes('<task-notification>') ? sums(prompt, tool) : []
    if (calls.length > 0) return { text: calls.length > 1 ? 'Adding them all.' : 'Let me add.', calls }
    const results = lastToolResults(request)
    if (results.length > 0) return { text: `Results: ${results.map(resultText).join(', ')}.` }
    return { text: prompt === '' ? 'Noted.' : `You said: ${prompt.slice(0, 60)}` }
  }
}
