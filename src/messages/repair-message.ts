/**
 * Repair of messages the store would refuse, for callers that must not lose a whole message over one bad
 * value (an agent adapter cannot ask a tool or a model to resend). Each rule changes as little as it can
 * and says what it did, so the stored message is an honest, valid stand-in for the original:
 *
 * - a lone UTF-16 surrogate, in a value or an object key, becomes U+FFFD;
 * - a string over `maxStringLength` keeps its head and tail (whole code points) around
 *   `\n<truncated chars="K"/>\n`; media or document bytes over it make the block a one-line text
 *   placeholder naming the size;
 * - a container nested deeper than `maxDepth` is replaced, at the deepest allowed level, by its JSON text;
 * - values JSON cannot hold become what `JSON.stringify` makes of them (non-finite numbers → null,
 *   `undefined` dropped, or null in an array; class instances → their JSON); a `__proto__` key is renamed;
 * - blank (empty or whitespace-only) text blocks are dropped, and a message left with no content gets one
 *   placeholder text block; a blank text item of a tool result becomes a placeholder text.
 *
 * The function is pure. What it changed is listed in the result and recorded in the message itself, under
 * `metadata.custom.contextLedger.repaired`. It does not validate: the shape rules (block kinds, required
 * fields, tool links) are the store's, and a message that breaks them still fails there.
 */
import { DEFAULT_MESSAGE_LIMITS, formatPath, type MessageLimits } from './schema.js'
import { headOf, tailOf } from './text-cut.js'
import type { JsonValue, MessageData } from './types.js'

/** What a repair fixed. */
export type RepairProblem =
  /** A string held a lone UTF-16 surrogate; it became U+FFFD. */
  | 'lone-surrogate'
  /** An object key held a lone UTF-16 surrogate; it became U+FFFD. */
  | 'lone-surrogate-key'
  /** A string was over the length limit; its middle was cut out (see `originalLength`). */
  | 'string-too-long'
  /** Media or document bytes were over the length limit; the block became a text placeholder. */
  | 'media-too-large'
  /** A value was nested too deep; it was replaced by its JSON text. */
  | 'too-deep'
  /** A value JSON cannot hold (NaN, undefined, a class instance…) became its JSON form. */
  | 'not-json'
  /** A `__proto__` key was renamed `[__proto__]`. */
  | 'prototype-key'
  /** An empty text block was dropped. */
  | 'empty-text'
  /** The message had no content left; a placeholder text block was added. */
  | 'empty-content'

/** One repair: where, and what. */
export interface MessageRepair {
  /** The path of the repaired field in the original message, e.g. `content[0].toolResult.content[0].text`. */
  readonly path: string
  /** What was wrong. */
  readonly problem: RepairProblem
  /** For cut strings and bytes: the original length in UTF-16 code units. */
  readonly originalLength?: number
}

/** The result of {@link repairMessage}. */
export interface RepairResult {
  /**
   * The repaired message; when anything was repaired it records the repairs under
   * `metadata.custom.contextLedger.repaired`. The input object itself when nothing was.
   */
  readonly message: MessageData
  /** Every repair, in the order they were made. Empty when nothing needed one. */
  readonly repairs: readonly MessageRepair[]
}

/** The text of the block a message left with no content gets. */
export const EMPTY_MESSAGE_PLACEHOLDER = '[empty message]'

/** The text a blank text item of a tool result is replaced with. */
export const EMPTY_TOOL_RESULT_PLACEHOLDER = '[empty tool result]'

/** Whether a value is a string providers refuse as text: empty, or white space only. */
function isBlankText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === ''
}

/** At most this many repairs are recorded in the message; the rest are counted. */
export const MAX_RECORDED_REPAIRS = 100

type Path = (string | number)[]

/** What the walk drops from an object (and turns into null in an array). */
const OMIT = Symbol('omit')

class Repairer {
  readonly repairs: MessageRepair[] = []

  constructor(private readonly limits: MessageLimits) {}

  note(path: Path, problem: RepairProblem, originalLength?: number): void {
    this.repairs.push({
      // A key on the path may itself hold a lone surrogate; the record must be storable too.
      path: formatPath(path).toWellFormed(),
      problem,
      ...(originalLength === undefined ? {} : { originalLength }),
    })
  }

  /** A repaired copy of any value; OMIT for values JSON leaves out. `path` is shared: pushed and popped. */
  value(value: unknown, path: Path): JsonValue | typeof OMIT {
    switch (typeof value) {
      case 'string':
        return this.string(value, path)
      case 'number':
        if (Number.isFinite(value)) return value
        this.note(path, 'not-json')
        return null
      case 'boolean':
        return value
      case 'bigint':
        this.note(path, 'not-json')
        return value.toString()
      case 'object':
        return value === null ? null : this.container(value, path, true)
      default:
        // undefined, functions, symbols: JSON.stringify leaves them out.
        this.note(path, 'not-json')
        return OMIT
    }
  }

  string(value: string, path: Path): string {
    let out = value
    if (!out.isWellFormed()) {
      this.note(path, 'lone-surrogate')
      out = out.toWellFormed()
    }
    if (out.length > this.limits.maxStringLength) {
      this.note(path, 'string-too-long', out.length)
      out = cutString(out, this.limits.maxStringLength)
    }
    return out
  }

  container(value: object, path: Path, callToJSON: boolean): JsonValue | typeof OMIT {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (callToJSON && typeof toJSON === 'function') {
      this.note(path, 'not-json')
      let json: unknown
      try {
        json = (toJSON as () => unknown).call(value)
      } catch {
        return OMIT
      }
      // As in JSON.stringify: the result is serialized as it is, without calling its own toJSON.
      if (typeof json !== 'object' || json === null) return this.value(json, path)
      return this.container(json, path, false)
    }
    const isArray = Array.isArray(value)
    const size = isArray ? value.length : Object.keys(value).length
    // The store refuses anything below `maxDepth`; a non-empty container there has children below it.
    if (path.length >= this.limits.maxDepth && size > 0) {
      this.note(path, 'too-deep')
      return this.string(serialize(value, this.limits.maxDepth), path)
    }
    if (isArray) {
      const out: JsonValue[] = []
      for (let i = 0; i < value.length; i++) {
        path.push(i)
        const item = this.value(value[i], path)
        path.pop()
        out.push(item === OMIT ? null : item)
      }
      return out
    }
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) this.note(path, 'not-json')
    const out: Record<string, JsonValue> = {}
    for (const key of Object.keys(value)) {
      path.push(key)
      const item = this.value((value as Record<string, unknown>)[key], path)
      let name = key
      if (name === '__proto__') {
        this.note(path, 'prototype-key')
        name = '[__proto__]'
      } else if (!name.isWellFormed()) {
        this.note(path, 'lone-surrogate-key')
        name = name.toWellFormed()
      }
      path.pop()
      if (item === OMIT) continue
      // Two keys that differ only in their lone surrogates meet after repair: keep both.
      let unique = name
      for (let n = 2; Object.hasOwn(out, unique); n++) unique = `${name} (${n})`
      out[unique] = item
    }
    return out
  }
}

/**
 * The structural repairs alone, of any value: lone surrogates, over-long strings, too-deep nesting, values
 * JSON cannot hold and `__proto__` keys, as {@link repairMessage} makes them — without its message rules
 * (media placeholders, blank text blocks) and without recording the repairs in the value. For a format
 * whose messages are not Strands-shaped and which records the repairs in its own place.
 *
 * @param value - anything
 * @param limits - the store's limits
 * @returns a plain JSON copy (null for a value JSON leaves out) and what was repaired, paths from the value
 */
export function repairJson(
  value: unknown,
  limits: MessageLimits = DEFAULT_MESSAGE_LIMITS,
): { value: JsonValue; repairs: readonly MessageRepair[] } {
  const repairer = new Repairer(limits)
  const out = repairer.value(value, [])
  return { value: out === OMIT ? null : out, repairs: repairer.repairs }
}

/** Head and tail of an over-long string around a marker, within `max` code units. */
function cutString(text: string, max: number): string {
  const marker = (removed: number): string => `\n<truncated chars="${removed}"/>\n`
  const room = max - marker(text.length).length
  if (room <= 0) return headOf(text, max)
  const head = headOf(text, Math.ceil(room / 2))
  const tail = tailOf(text, Math.floor(room / 2))
  return `${head}${marker(text.length - head.length - tail.length)}${tail}`
}

/** The JSON text of a value, or a note when it has none (a cycle, a BigInt, a stack-deep nesting). */
function serialize(value: object, maxDepth: number): string {
  try {
    // undefined when a toJSON() returns undefined, whatever the lib's return type says
    const json = JSON.stringify(value) as string | undefined
    return json ?? 'null'
  } catch {
    return `[a value nested deeper than ${maxDepth} levels that could not be serialized]`
  }
}

/** Media and documents whose bytes are over the limit become a text placeholder; other blocks stay. */
function placeholderForBytes(block: unknown, path: Path, repairer: Repairer, max: number): unknown {
  if (typeof block !== 'object' || block === null) return undefined
  for (const kind of ['image', 'video', 'audio', 'document'] as const) {
    const media = (block as Record<string, unknown>)[kind] as
      { format?: unknown; name?: unknown; source?: { bytes?: unknown } } | undefined
    const bytes = media?.source?.bytes
    if (typeof bytes !== 'string' || bytes.length <= max) continue
    repairer.note([...path, kind, 'source', 'bytes'], 'media-too-large', bytes.length)
    const name = typeof media?.name === 'string' ? `${media.name}, ` : ''
    const format = typeof media?.format === 'string' ? media.format : 'unknown format'
    const size = Math.floor((bytes.length * 3) / 4)
    return {
      text: `[${kind}: ${name}${format}, about ${size} bytes, removed: over the ledger's limit of ${max} base64 characters]`,
    }
  }
  return undefined
}

/** Replaces over-long media bytes, in content blocks and tool-result items. */
function replaceLargeMedia(content: readonly unknown[], repairer: Repairer, max: number): unknown[] {
  return content.map((block, i) => {
    const path: Path = ['content', i]
    const replaced = placeholderForBytes(block, path, repairer, max)
    if (replaced !== undefined) return replaced
    const result = (block as { toolResult?: { content?: unknown } } | null)?.toolResult
    if (!Array.isArray(result?.content)) return block
    const original: readonly unknown[] = result.content
    const items = original.map(
      (item, j) => placeholderForBytes(item, [...path, 'toolResult', 'content', j], repairer, max) ?? item,
    )
    const changed = items.some((item, j) => item !== original[j])
    return changed ? { ...(block as object), toolResult: { ...result, content: items } } : block
  })
}

/** The message with its repairs recorded under `metadata.custom.contextLedger.repaired`. */
function withRepairRecord(
  message: Record<string, JsonValue>,
  repairs: readonly MessageRepair[],
): MessageData {
  const metadata = isRecord(message.metadata) ? message.metadata : {}
  const custom = isRecord(metadata.custom) ? metadata.custom : {}
  const ours = isRecord(custom.contextLedger) ? custom.contextLedger : {}
  const recorded = repairs.slice(0, MAX_RECORDED_REPAIRS).map((r) => ({ ...r }))
  const omitted = repairs.length - recorded.length
  const contextLedger = { ...ours, repaired: recorded, ...(omitted > 0 ? { repairsOmitted: omitted } : {}) }
  return {
    ...message,
    metadata: { ...metadata, custom: { ...custom, contextLedger } },
  } as unknown as MessageData
}

function isRecord(value: JsonValue | undefined): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Repairs what the store's structural checks would refuse in a message (see the module comment for the
 * rules). Use it when refusing the whole message is worse than storing a marked, repaired copy — and
 * show the repaired copy wherever the original was, so what was archived is what was seen.
 *
 * @param data - a message as a caller has it (it may hold values the store refuses)
 * @param limits - the store's limits; the defaults when omitted
 * @returns the repaired message and the list of repairs; the same object and `[]` when nothing needed one
 *
 * @example
 * ```ts
 * const { message, repairs } = repairMessage({ role: 'user', content: [{ text: 'caf\uD83D' }] })
 * message.content // [{ text: 'caf\uFFFD' }]
 * repairs // [{ path: 'content[0].text', problem: 'lone-surrogate' }]
 * ```
 */
export function repairMessage(
  data: MessageData,
  limits: MessageLimits = DEFAULT_MESSAGE_LIMITS,
): RepairResult {
  const repairer = new Repairer(limits)
  const input = data as unknown as { content?: unknown }
  const content = Array.isArray(input.content)
    ? replaceLargeMedia(input.content, repairer, limits.maxStringLength)
    : input.content
  const walked = repairer.value({ ...data, content }, [])
  if (!isRecord(walked as JsonValue)) return { message: data, repairs: [] }
  const message = walked as Record<string, JsonValue>
  if (Array.isArray(message.content)) {
    const kept = message.content.filter((block, i) => {
      const empty = isRecord(block) && isBlankText(block.text) && Object.keys(block).length === 1
      if (empty) repairer.note(['content', i], 'empty-text')
      return !empty
    })
    kept.forEach((block, i) => {
      // A blank text item of a tool result (a tool that returned '') becomes a placeholder: the result
      // itself must stay, it answers a call.
      const result = isRecord(block) ? block.toolResult : undefined
      if (!isRecord(result) || !Array.isArray(result.content)) return
      result.content = result.content.map((item, j) => {
        if (!isRecord(item) || !isBlankText(item.text)) return item
        repairer.note(['content', i, 'toolResult', 'content', j], 'empty-text')
        return { text: EMPTY_TOOL_RESULT_PLACEHOLDER }
      })
    })
    if (kept.length === 0) {
      repairer.note(['content'], 'empty-content')
      kept.push({ text: EMPTY_MESSAGE_PLACEHOLDER })
    }
    message.content = kept
  }
  const { repairs } = repairer
  if (repairs.length === 0) return { message: data, repairs }
  return { message: withRepairRecord(message, repairs), repairs }
}
