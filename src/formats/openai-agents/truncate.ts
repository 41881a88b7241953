/**
 * The window form of an `openai-agents` result item with its long outputs cut (the Strands rule the other
 * formats use: a text over the threshold keeps its first and last 200 characters around a
 * `<truncated chars="n"/>` mark; an image or file in a function's output becomes a text note). A
 * computer call's screenshot is its answer and stays. Only the window shows this form; the archive keeps
 * the item as it was.
 */
import { truncateLongText } from '../../messages/truncate-tool-results.js'
import type { JsonValue } from '../../messages/types.js'
import { isJsonObject, type JsonObject } from '../ai-sdk-common.js'
import { isResult, repairResults } from './derive.js'
import type { AgentItemData, ResultItemData } from './types.js'

/** A text part with its text cut, a media part as a note; undefined when it stays. */
function cutPart(p: JsonValue, textType: 'text' | 'input_text'): JsonValue | undefined {
  if (!isJsonObject(p)) return undefined
  if (p.type === 'text' || p.type === 'input_text') {
    const text = typeof p.text === 'string' ? truncateLongText(p.text) : undefined
    return text === undefined ? undefined : { ...p, text }
  }
  return { type: textType, text: `[${typeof p.type === 'string' ? p.type : 'part'}]` }
}

function cutArray(
  values: readonly JsonValue[],
  cut: (v: JsonValue) => JsonValue | undefined,
): JsonValue[] | undefined {
  const out = values.map((v) => cut(v) ?? v)
  return out.some((v, i) => v !== values[i]) ? out : undefined
}

function cutShell(o: JsonValue): JsonValue | undefined {
  if (!isJsonObject(o)) return undefined
  const stdout = typeof o.stdout === 'string' ? truncateLongText(o.stdout) : undefined
  const stderr = typeof o.stderr === 'string' ? truncateLongText(o.stderr) : undefined
  if (stdout === undefined && stderr === undefined) return undefined
  return { ...o, ...(stdout === undefined ? {} : { stdout }), ...(stderr === undefined ? {} : { stderr }) }
}

/** The cut output of a result item, or undefined when nothing is long. */
function cutOutput(item: ResultItemData): JsonValue | undefined {
  const output = item.output
  if (item.type === 'computer_call_result' || output === undefined) return undefined
  if (typeof output === 'string') return truncateLongText(output)
  if (item.type === 'shell_call_output') return Array.isArray(output) ? cutArray(output, cutShell) : undefined
  if (Array.isArray(output)) return cutArray(output, (p) => cutPart(p, 'input_text'))
  return cutPart(output as JsonValue, 'text')
}

function cutResult(item: ResultItemData): ResultItemData | undefined {
  const output = cutOutput(item)
  return output === undefined ? undefined : { ...item, output }
}

/**
 * An item with its long tool outputs cut.
 *
 * @param item - a stored item
 * @returns the cut form, or undefined when nothing is long
 */
export function truncateAgentItem(item: AgentItemData): AgentItemData | undefined {
  const results = repairResults(item)
  if (results !== undefined) {
    const cut = cutArray(
      results as unknown as JsonObject[],
      (r) => cutResult(r as unknown as ResultItemData) as JsonValue | undefined,
    )
    if (cut === undefined) return undefined
    const data = item.providerData as JsonObject
    return {
      ...item,
      providerData: { ...data, contextLedger: { ...(data.contextLedger as JsonObject), results: cut } },
    }
  }
  return isResult(item) ? cutResult(item) : undefined
}
