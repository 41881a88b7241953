/**
 * The validation limits of incoming messages, and the bounds a caller may set them within. The bounds
 * keep every allowed setting usable: the lowest depth still holds the deepest path the message schema
 * itself has (a text inside a document inside a tool result), the shortest string limit still holds the
 * store's own repair rows and minted tracking ids, and the highest limits stay below what V8 and SQLite
 * can hold — so no setting refuses every message or lets the walk overflow the stack.
 */
import { ContextLedgerError } from '../errors.js'

/** Limits applied to every incoming message. */
export interface MessageLimits {
  /** Deepest nesting of objects and arrays accepted (default 64; an integer in [10, 1000]). */
  maxDepth: number
  /**
   * Longest string accepted, object keys included, in UTF-16 code units (default 16 Mi; an integer in
   * [256, 256 Mi]).
   */
  maxStringLength: number
}

/** The limits used when a store is opened without its own. */
export const DEFAULT_MESSAGE_LIMITS: Readonly<MessageLimits> = Object.freeze({
  maxDepth: 64,
  maxStringLength: 16 * 1024 * 1024,
})

/** The inclusive range each limit may be set to. */
export const MESSAGE_LIMIT_BOUNDS: Readonly<Record<keyof MessageLimits, readonly [number, number]>> =
  Object.freeze({
    // `content[i].toolResult.content[j].document.source.content[k].text` is 10 levels deep.
    maxDepth: Object.freeze([10, 1000] as const),
    maxStringLength: Object.freeze([256, 256 * 1024 * 1024] as const),
  })

function optionError(field: string, problem: string): ContextLedgerError<'INVALID_OPTIONS'> {
  return new ContextLedgerError('INVALID_OPTIONS', `Invalid option ${field}: ${problem}`, { path: field })
}

/**
 * Checks limits a caller gave (all fields optional) and fills in the defaults.
 *
 * @param limits - `undefined`, or an object with `maxDepth` and/or `maxStringLength`
 * @param field - how the caller named the object, for the error (e.g. `limits`)
 * @returns complete, frozen limits
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the field, for an unknown key or a value that is
 *   not an integer within {@link MESSAGE_LIMIT_BOUNDS}
 */
export function resolveMessageLimits(limits: unknown, field = 'limits'): Readonly<MessageLimits> {
  if (limits === undefined) return DEFAULT_MESSAGE_LIMITS
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits))
    throw optionError(field, `expected an object, got ${describeValue(limits)}`)
  const out: MessageLimits = { ...DEFAULT_MESSAGE_LIMITS }
  for (const key of Object.keys(limits)) {
    if (!Object.hasOwn(MESSAGE_LIMIT_BOUNDS, key))
      throw optionError(`${field}.${key}`, `unknown option (known: maxDepth, maxStringLength)`)
    const value: unknown = (limits as Record<string, unknown>)[key]
    if (value === undefined) continue
    const [min, max] = MESSAGE_LIMIT_BOUNDS[key as keyof MessageLimits]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      throw optionError(
        `${field}.${key}`,
        `expected an integer from ${min} to ${max}, got ${describeValue(value)}`,
      )
    out[key as keyof MessageLimits] = value
  }
  return Object.freeze(out)
}

/**
 * A short description of a value for an error message: its type, or the value itself when short.
 *
 * @param value - anything
 * @returns e.g. `"16M" (a string)`, `-1`, `null`, `an array`
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value)
    case 'string':
      return value.length <= 40
        ? `${JSON.stringify(value.toWellFormed())} (a string)`
        : `a string of ${value.length} chars`
    case 'undefined':
      return 'undefined'
    case 'object':
      return 'an object'
    default:
      return `a ${typeof value}`
  }
}
