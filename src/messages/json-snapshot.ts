/**
 * The one read of a caller's message. Validation must judge exactly the bytes that get stored, and a
 * caller's object can answer two reads differently: a getter or a Proxy can return a short text to the
 * validator and a 30 MB one to `JSON.stringify`, a non-enumerable `toJSON` can make `JSON.stringify`
 * store something the validator never saw. So the value is walked once, every property read once, and
 * copied into fresh plain objects and arrays as it is checked; everything after — the schema, the
 * classification, the token count and the stored body — works on that copy, never on the caller's value.
 *
 * What the walk accepts is plain JSON: strings (well-formed UTF-16, bounded length), finite numbers,
 * booleans, null, arrays (every index present) and objects whose prototype is `Object.prototype` or null,
 * with bounded depth and bounded, well-formed keys. It refuses what `JSON.stringify` would silently change
 * or drop (`undefined`, functions, symbols, bigint, NaN, class instances such as Date or Map, holes in
 * arrays, a `toJSON` method anywhere) and `__proto__` keys. A key `toJSON` that holds data (an own,
 * enumerable value that is not a function, as `JSON.parse` makes of `{"toJSON": 1}`) is plain data:
 * `JSON.stringify` calls only a function there, and stores the key like any other. For such plain input the copy serializes
 * byte-identically to the input. What `JSON.stringify` ignores anyway is not copied: symbol keys,
 * non-enumerable properties, and properties of an array other than its indices. On request
 * (`omitUndefined`) an object property whose value is `undefined` is skipped, as `JSON.stringify` skips
 * it: the AI SDK's own messages carry such keys (`providerOptions: undefined`); in an array it stays
 * refused (`JSON.stringify` would store `null` there).
 */
import { ContextLedgerError } from '../errors.js'
import type { MessageLimits } from './limits.js'
import type { JsonValue } from './types.js'

/** A field's location: keys and array indices from the message root. */
export type Path = (string | number)[]

/**
 * Formats a path as `content[1].toolUse.toolUseId`.
 *
 * @param path - keys and indices
 * @returns the path, or `(message)` for the root
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out === '' ? '(message)' : out
}

/**
 * The `INVALID_MESSAGE` error for the field at `path`.
 *
 * @param path - where the problem is (copied by the caller if it is a shared stack)
 * @param problem - what is wrong there
 * @param cause - the underlying error, if any
 * @returns the error to throw
 */
export function invalidMessage(
  path: Path,
  problem: string,
  cause?: unknown,
): ContextLedgerError<'INVALID_MESSAGE'> {
  const where = formatPath(path)
  return new ContextLedgerError('INVALID_MESSAGE', `Invalid message at ${where}: ${problem}`, {
    path: where,
    cause,
  })
}

/**
 * Names a value's type for an error message.
 *
 * @param value - anything
 * @returns e.g. `null`, `array`, `NaN`, `undefined`, `function`
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return typeof value
}

/** A key as it may appear in a path: a huge or malformed key is shortened and made printable. */
function printableKey(key: string): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key
  return shown.toWellFormed()
}

/**
 * Copies `input` into fresh plain JSON data, reading each property exactly once and checking it on the
 * way (see the module comment for what is accepted).
 *
 * @param input - what the caller passed
 * @param limits - depth and string-length limits
 * @param omitUndefined - skip object properties whose value is `undefined` instead of refusing them
 * @returns a plain copy that nothing outside this call references
 * @throws ContextLedgerError `INVALID_MESSAGE` naming the path of the first bad value; also when reading
 *   the value throws (a getter, a Proxy trap, a revoked Proxy) or it is nested too deep for the stack
 */
export function snapshotJson(input: unknown, limits: MessageLimits, omitUndefined = false): JsonValue {
  const path: Path = []
  try {
    return copy(input, path, [], limits, omitUndefined)
  } catch (error) {
    if (error instanceof ContextLedgerError) throw error
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    throw invalidMessage([...path], `reading the value failed (${what})`, error)
  }
}

/**
 * The walk. `path` and `ancestors` (the objects and arrays above `value`) are shared stacks, pushed and
 * popped, copied only when throwing: this runs on every append.
 */
function copy(
  value: unknown,
  path: Path,
  ancestors: object[],
  limits: MessageLimits,
  omitUndefined: boolean,
): JsonValue {
  if (path.length > limits.maxDepth)
    throw invalidMessage([...path], `nested deeper than ${limits.maxDepth} levels`)
  switch (typeof value) {
    case 'string':
      if (value.length > limits.maxStringLength)
        throw invalidMessage(
          [...path],
          `string of ${value.length} chars exceeds the limit of ${limits.maxStringLength}`,
        )
      if (!value.isWellFormed()) throw invalidMessage([...path], 'string contains a lone UTF-16 surrogate')
      return value
    case 'number':
      if (!Number.isFinite(value)) throw invalidMessage([...path], `expected a finite number, got ${value}`)
      return value
    case 'boolean':
      return value
    case 'object': {
      if (value === null) return null
      // Found before the depth limit, so a cycle is named as one, at the first repeat, not after 64 levels.
      if (ancestors.includes(value))
        throw invalidMessage(
          [...path],
          'a circular reference (this value contains itself); JSON cannot hold it',
        )
      if (Array.isArray(value)) {
        if ('toJSON' in value) throw hasToJson(path)
        const length = value.length
        const out: JsonValue[] = []
        ancestors.push(value)
        for (let i = 0; i < length; i++) {
          path.push(i)
          out.push(copy(value[i], path, ancestors, limits, omitUndefined))
          path.pop()
        }
        ancestors.pop()
        return out
      }
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null)
        throw invalidMessage(
          [...path],
          `expected a plain JSON object, got ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'an exotic object'}`,
        )
      if ('toJSON' in value && !isToJsonData(value)) throw hasToJson(path)
      const out: Record<string, JsonValue> = {}
      ancestors.push(value)
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        if (key.length > limits.maxStringLength)
          throw invalidMessage(
            [...path, printableKey(key)],
            `key of ${key.length} chars exceeds the limit of ${limits.maxStringLength}`,
          )
        if (!key.isWellFormed())
          throw invalidMessage([...path, printableKey(key)], 'key contains a lone UTF-16 surrogate')
        path.push(key)
        if (key === '__proto__') throw invalidMessage([...path], 'the key "__proto__" is not accepted')
        const child = (value as Record<string, unknown>)[key]
        if (!(omitUndefined && child === undefined))
          out[key] = copy(child, path, ancestors, limits, omitUndefined)
        path.pop()
      }
      ancestors.pop()
      return out
    }
    default:
      throw invalidMessage([...path], `expected a JSON value, got ${describeType(value)}`)
  }
}

/** Whether an object's `toJSON` is data (own, enumerable, a value that is not a function): a key like any other. */
function isToJsonData(value: object): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(value, 'toJSON')
  return (
    descriptor !== undefined &&
    descriptor.enumerable === true &&
    'value' in descriptor &&
    typeof descriptor.value !== 'function'
  )
}

function hasToJson(path: Path): ContextLedgerError<'INVALID_MESSAGE'> {
  return invalidMessage(
    [...path, 'toJSON'],
    'a toJSON method is not honoured (JSON.stringify would store what it returns, not this value); pass plain data',
  )
}
