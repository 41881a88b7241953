/**
 * Claude Agent SDK transcript entries for the `claude-agent` format's tests: the real CLI's recordings
 * (`test/fixtures/claude-agent/format-*.json`, Claude Code 2.1.332 against a stand-in Messages API) and
 * builders of entries shaped as the CLI writes them — one content block per `assistant` entry, a tool's
 * answer as a `user` entry of `tool_result` blocks, attachments and bookkeeping entries between them.
 */
import { readFileSync } from 'node:fs'
import type { MessageData } from '../../src/index.js'

/** A transcript entry as the SDK hands it to a store. */
export type Entry = { type: string; uuid?: string; [key: string]: unknown }

/** The recorded fixtures, by name. */
export const FIXTURES = ['format-tool-call', 'format-tool-call-resume-compact'] as const

/**
 * A recorded transcript.
 *
 * @param name - the fixture's name
 * @returns its entries, a fresh copy
 */
export function fixture(name: (typeof FIXTURES)[number]): Entry[] {
  const url = new URL(`../fixtures/claude-agent/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as Entry[]
}

/** Entries as the store's API types them (a session of this format holds them exactly). */
export const asMessages = (entries: readonly unknown[]): MessageData[] => entries as MessageData[]

const SESSION = '93343d98-0000-4000-8000-000000000000'

/** Builds entries chained by `parentUuid`, with distinct uuids. */
export class EntryMaker {
  private n = 0
  private parent: string | null = null

  constructor(private readonly prefix = 'e') {}

  private next(): string {
    return `${this.prefix}-${String(this.n++).padStart(4, '0')}-4000-8000-000000000000`
  }

  private chained(type: string, fields: Record<string, unknown>): Entry {
    const uuid = this.next()
    const entry: Entry = {
      parentUuid: this.parent,
      isSidechain: false,
      type,
      ...fields,
      uuid,
      timestamp: '2026-11-28T05:30:09.138Z',
      sessionId: SESSION,
    }
    this.parent = uuid
    return entry
  }

  /** A prompt. */
  prompt(text: string): Entry {
    return this.chained('user', { message: { role: 'user', content: [{ type: 'text', text }] } })
  }

  /** One block of the model's answer (the CLI writes one entry per block, sharing `message.id`). */
  assistant(block: Record<string, unknown>, messageId = 'msg_1'): Entry {
    return this.chained('assistant', {
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [block],
      },
    })
  }

  /** The model's text. */
  text(text: string, messageId?: string): Entry {
    return this.assistant({ type: 'text', text }, messageId)
  }

  /** A call. */
  call(id: string, input: Record<string, unknown> = { a: 1 }, messageId?: string): Entry {
    return this.assistant({ type: 'tool_use', id, name: 'mcp__calc__add', input }, messageId)
  }

  /** A tool's answer. */
  result(id: string, text: string, isError = false): Entry {
    return this.chained('user', {
      message: {
        role: 'user',
        content: [
          {
            tool_use_id: id,
            type: 'tool_result',
            content: [{ type: 'text', text }],
            ...(isError ? { is_error: true } : {}),
          },
        ],
      },
      toolUseResult: [{ type: 'text', text }],
    })
  }

  /** An attachment the CLI renders as a system reminder. */
  attachment(text: string): Entry {
    return this.chained('attachment', {
      attachment: { type: 'date', date: text },
      rendered: [{ content: `<system-reminder>\n${text}\n</system-reminder>` }],
      renderedRole: 'system',
    })
  }

  /** A compaction's boundary and its summary, preserving the entry `head` on. */
  compaction(summary: string, head?: string): Entry[] {
    const boundary = this.chained('system', {
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      compactMetadata: {
        trigger: 'manual',
        preTokens: 15,
        ...(head === undefined
          ? {}
          : { preservedSegment: { headUuid: head, anchorUuid: 'x', tailUuid: head } }),
      },
    })
    return [
      boundary,
      this.chained('user', { message: { role: 'user', content: summary }, isCompactSummary: true }),
    ]
  }

  /** A bookkeeping entry without uuid (queue operations, costs, modes). */
  static bookkeeping(type: 'queue-operation' | 'cost-state' | 'mode' | 'last-prompt'): Entry {
    switch (type) {
      case 'queue-operation':
        return { type, operation: 'enqueue', timestamp: '2026-11-28T05:30:08.000Z', sessionId: SESSION }
      case 'cost-state':
        return { type, sessionId: SESSION, totalCostUSD: 0.0002, modelUsage: {} }
      case 'mode':
        return { type, mode: 'default', sessionId: SESSION }
      case 'last-prompt':
        return { type, lastPrompt: 'What is 40 + 2?', leafUuid: 'x', sessionId: SESSION }
    }
  }
}
