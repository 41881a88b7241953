/**
 * Each format cuts its long tool outputs for the window the way Strands does (head and tail of a long
 * text around a `<truncated chars="n"/>` mark, a large JSON value replaced by a note of its size), leaves
 * short ones alone, and the cut message is still one the AI SDK accepts.
 */
import { modelMessageSchema, validateUIMessages } from 'ai'
import { describe, expect, it } from 'vitest'
import { formatNamed } from '../../src/formats/index.js'
import type { StoredMessageData } from '../../src/index.js'

const long = 'a'.repeat(300) + 'MIDDLE' + 'z'.repeat(300)
const body = (m: unknown): StoredMessageData => m as StoredMessageData

describe('truncate', () => {
  const model = formatNamed('ai-sdk/model')
  it('cuts a long text output of a tool message, keeping both ends, and replaces large JSON by a note', () => {
    const message = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: long } },
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 't',
          output: { type: 'json', value: { big: long } },
        },
        { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'short' } },
      ],
    }
    const cut = model.truncate(body(message)) as unknown as typeof message
    expect(cut.content[0]?.output).toEqual({
      type: 'text',
      value: `${'a'.repeat(200)}\n<truncated chars="${long.length - 400}"/>\n${'z'.repeat(200)}`,
    })
    expect(cut.content[1]?.output).toEqual({
      type: 'text',
      value: `[json: ${JSON.stringify({ big: long }).length} chars]`,
    })
    expect(cut.content[2]).toBe(message.content[2])
    expect(modelMessageSchema.safeParse(cut).success).toBe(true)
    expect(JSON.stringify(cut)).not.toContain('MIDDLE')
  })

  it('leaves short outputs and non-tool messages alone', () => {
    expect(model.truncate(body({ role: 'user', content: long }))).toBeUndefined()
    const short = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'ok' } },
      ],
    }
    expect(model.truncate(body(short))).toBeUndefined()
  })

  it('cuts a UI tool part output and error text, and the message still validates', async () => {
    const ui = formatNamed('ai-sdk/ui')
    const message = {
      id: 'm1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-search',
          toolCallId: 'x',
          state: 'output-available',
          input: { q: 'x' },
          output: { rows: long },
        },
        { type: 'tool-search', toolCallId: 'y', state: 'output-error', input: { q: 'y' }, errorText: long },
        { type: 'text', text: long },
      ],
    }
    const cut = ui.truncate(body(message)) as unknown as typeof message
    expect(cut.parts[0]).toMatchObject({ output: `[json: ${JSON.stringify({ rows: long }).length} chars]` })
    expect((cut.parts[1] as { errorText?: string }).errorText).toContain('<truncated chars=')
    expect(cut.parts[2]).toBe(message.parts[2])
    await expect(validateUIMessages({ messages: [cut] })).resolves.toHaveLength(1)
  })

  it('cuts a Strands tool result as truncateToolResults does', () => {
    const strands = formatNamed('strands')
    const message = {
      role: 'user',
      content: [{ toolResult: { toolUseId: 'a', status: 'success', content: [{ text: long }] } }],
      trackingId: 't',
    }
    const cut = strands.truncate(body(message))
    expect(cut?.content[0]).toEqual({
      toolResult: {
        toolUseId: 'a',
        status: 'success',
        content: [
          {
            text: `${'a'.repeat(200)}
<truncated chars="${long.length - 400}"/>
${'z'.repeat(200)}`,
          },
        ],
      },
    })
    expect(
      strands.truncate(body({ role: 'user', content: [{ text: long }], trackingId: 't' })),
    ).toBeUndefined()
  })
})
