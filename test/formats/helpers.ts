/** Helpers of the AI SDK format tests. */

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
