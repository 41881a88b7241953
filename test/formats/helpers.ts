/** Helpers of the AI SDK format tests. */
import { expect } from 'vitest'
import { ContextLedgerError } from '../../src/errors.js'

/** The value, or a test failure when it is missing. */
export function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing value')
  return value
}

/** Replaces (or, for undefined, deletes) the `pick`-th node of `root` (in depth-first order). */
export function mutate(root: unknown, pick: number, value: unknown): unknown {
  const nodes: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = []
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return
    for (const [key, child] of Object.entries(node)) {
      nodes.push({ parent: node as Record<string, unknown>, key: Array.isArray(node) ? Number(key) : key })
      walk(child)
    }
  }
  walk(root)
  if (nodes.length === 0) return value
  const { parent, key } = must(nodes[pick % nodes.length])
  if (value === undefined && !Array.isArray(parent)) Reflect.deleteProperty(parent, key)
  else (parent as Record<string | number, unknown>)[key] = value
  return root
}

/**
 * The `INVALID_MESSAGE` error `snapshot` throws for `m`; a test failure when it accepts it.
 *
 * @param snapshot - a format's snapshot, with its limits bound
 * @param m - a message
 * @returns the error
 */
export function refusalOf(snapshot: (m: unknown) => unknown, m: unknown): ContextLedgerError {
  try {
    snapshot(m)
  } catch (error) {
    expect(error).toBeInstanceOf(ContextLedgerError)
    expect((error as ContextLedgerError).code).toBe('INVALID_MESSAGE')
    return error as ContextLedgerError
  }
  throw new Error(`accepted ${JSON.stringify(m)}`)
}
