/**
 * Whether a stored body that is JSON has the shape the checker reads: an object with a `role` of
 * `user` or `assistant` and a `content` array of objects, each `toolUse` / `toolResult` block an object
 * with a string `toolUseId`. A row changed behind the store's back can hold any JSON (`[1]`, `null`,
 * `42`); the checker names such a row as a problem instead of failing on it. It is the least the rules
 * need, not the validation `append()` runs.
 */

/** What a JSON value is, in words. */
function kind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * What keeps a parsed body from being read as a message, or undefined when it can be.
 *
 * @param value - the parsed body
 * @returns e.g. `an array, not a message object`, `content[2] is null, not a block object`
 */
export function messageShapeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `${kind(value)}, not a message object`
  if (value.role !== 'user' && value.role !== 'assistant')
    return `role ${value.role === undefined ? 'missing' : JSON.stringify(value.role)} is neither "user" nor "assistant"`
  const content = value.content
  if (!Array.isArray(content)) return `content is ${kind(content)}, not an array`
  for (const [i, block] of content.entries()) {
    if (!isObject(block)) return `content[${i}] is ${kind(block)}, not a block object`
    for (const key of ['toolUse', 'toolResult'])
      if (key in block) {
        const inner = block[key]
        if (!isObject(inner) || typeof inner.toolUseId !== 'string')
          return `content[${i}].${key} has no string toolUseId`
      }
  }
  return undefined
}

/**
 * Throws when any of `messages` is not a message, so a read that returned them is a problem.
 *
 * @param messages - what a read returned
 * @returns them
 * @throws Error naming the first one that is not a message
 */
export function assertMessages<T>(messages: readonly T[]): readonly T[] {
  messages.forEach((m, i) => {
    const problem = messageShapeProblem(m)
    if (problem !== undefined) throw new Error(`message ${i} holds ${problem}`)
  })
  return messages
}
