/**
 * The package as a user gets it: built to dist/, imported by its own name through the `exports` map,
 * migrations found from the built code, and the root entry free of the optional Strands SDK.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'pipe',
    },
  )
}, 120_000)

/** Every relative or bare import reachable from a built entry file. */
function importGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(['"]([^'"]+)['"]\)/g,
    )) {
      const spec = match[1] ?? match[2] ?? ''
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else bare.add(spec)
    }
  }
  visit(entry)
  return { files, bare }
}

describe('package', () => {
  it('imports by name from dist, migrates a new file, and round-trips a message', () => {
    const script = `
      import { openContextStore, PersistentConversationManager } from 'context-ledger'
      const store = openContextStore(':memory:')
      const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
      m.append([{ role: 'user', content: [{ text: 'a' }] }, { role: 'assistant', content: [{ text: 'b' }] },
                { role: 'user', content: [{ text: 'c' }] }])
      m.applyWindow()
      console.log(JSON.stringify(m.window().map((x) => x.content[0].text)))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
    }).toString()
    expect(JSON.parse(out)).toStrictEqual(['c'])
  })

  it('keeps @strands-agents/sdk out of the root entry', () => {
    const { bare } = importGraph(join(root, 'dist/index.js'))
    expect([...bare].filter((s) => s.startsWith('@strands-agents'))).toStrictEqual([])
    expect([...bare].sort()).toStrictEqual(
      [...bare]
        .filter(
          (s) =>
            ['better-sqlite3', 'drizzle-orm', 'zod'].some((d) => s === d || s.startsWith(`${d}/`)) ||
            s.startsWith('node:'),
        )
        .sort(),
    )
  })

  it('ships its migrations and declares the exports a user imports', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      files: string[]
      exports: Record<string, { types: string; import: string }>
      engines: { node: string }
    }
    expect(pkg.files).toContain('migrations')
    expect(pkg.engines.node).toBe('>=20')
    for (const target of Object.values(pkg.exports).filter((e) => typeof e === 'object')) {
      expect(existsSync(join(root, target.import))).toBe(true)
      expect(existsSync(join(root, target.types))).toBe(true)
    }
    expect(existsSync(join(root, 'migrations/meta/_journal.json'))).toBe(true)
  })
})
