/**
 * The tarball `npm publish` would upload: built from the working tree in a temp dir, then checked file by
 * file, by publint and by Are the Types Wrong (attw).
 *
 * Slow (a build and two package linters): part of the package project, not the unit tests.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import {
  buildInto,
  copyWorkingTree,
  npmEnv,
  pack,
  repoRoot,
  run,
  runTool,
  type PackedFile,
} from './workspace.js'

let temp: TempDir
let tarball: string
let files: PackedFile[]
/** The tarball, unpacked: `package/…`. */
let unpacked: string

beforeAll(async () => {
  temp = tempDir('context-ledger-tarball-')
  const source = join(temp.path, 'context-ledger')
  await copyWorkingTree(source)
  await buildInto(source)
  ;({ tarball, files } = await pack(source, temp.path, npmEnv()))
  unpacked = join(temp.path, 'unpacked')
  mkdirSync(unpacked)
  await run('tar', ['-xzf', tarball, '-C', unpacked], { cwd: temp.path })
}, 300_000)

afterAll(() => {
  temp.cleanup()
})

/** Every relative or bare import reachable from a built entry file. */
function importGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const seen = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
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
  return { files: seen, bare }
}

describe('the tarball', () => {
  it('holds the build, the SQL migrations (SQLite and PostgreSQL) and their journals, the docs, the scripted model the README links, README, LICENSE and package.json only', () => {
    const paths = files.map((f) => f.path)
    const unexpected = paths.filter(
      (p) =>
        !/^dist\/.+\.(js|d\.ts)$/.test(p) &&
        !/^migrations(-pg)?\/\d{4}_\w+\.sql$/.test(p) &&
        !/^docs\/[\w-]+\.md$/.test(p) &&
        ![
          'migrations/meta/_journal.json',
          'migrations-pg/meta/_journal.json',
          'examples/strands-scripted-model.ts',
          'README.md',
          'LICENSE',
          'package.json',
        ].includes(p),
    )
    expect(unexpected).toStrictEqual([])
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'dist/index.js',
        'docs/api.md',
        'examples/strands-scripted-model.ts',
      ]),
    )
    expect(readFileSync(join(unpacked, 'package/LICENSE'), 'utf8')).toContain('Apache License')
  })

  it.each(['migrations', 'migrations-pg'])(
    'ships every migration its journal names, and every migration of the repository (%s)',
    (folder) => {
      const journal = JSON.parse(
        readFileSync(join(unpacked, `package/${folder}/meta/_journal.json`), 'utf8'),
      ) as { entries: { tag: string }[] }
      const shipped = readdirSync(join(unpacked, `package/${folder}`)).filter((f) => f.endsWith('.sql'))
      expect(shipped.sort()).toStrictEqual(journal.entries.map((e) => `${e.tag}.sql`).sort())
      const inRepo = readdirSync(join(repoRoot, folder)).filter((f) => f.endsWith('.sql'))
      expect(shipped.sort()).toStrictEqual(inRepo.sort())
    },
  )

  it('has no source-map comments and no declarations marked @internal', () => {
    const built = files.map((f) => f.path).filter((p) => p.startsWith('dist/'))
    const read = (p: string): string => readFileSync(join(unpacked, 'package', p), 'utf8')
    expect(built.filter((p) => read(p).includes('sourceMappingURL'))).toStrictEqual([])
    expect(built.filter((p) => p.endsWith('.d.ts') && read(p).includes('@internal'))).toStrictEqual([])
  })

  it('keeps @strands-agents/sdk, @openai/agents, ai, LangChain and the Claude Agent SDK out of the root entry', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/index.js'))
    expect(
      [...bare].filter((s) => s.startsWith('@strands-agents') || s.startsWith('@openai/')),
    ).toStrictEqual([])
    // The claude-agent format (src/formats/claude-agent/) is pure: the root entry loads no Claude SDK.
    expect([...bare].filter((s) => s.startsWith('@anthropic-ai/'))).toStrictEqual([])
    // The langchain format (src/formats/langchain/) is pure: the root entry loads no LangChain.
    expect(
      [...bare].filter((s) => s === 'langchain' || s.startsWith('langchain/') || s.startsWith('@langchain/')),
    ).toStrictEqual([])
    expect(
      [...bare].filter((s) => s === 'ai' || s.startsWith('ai/') || s.startsWith('@ai-sdk/')),
    ).toStrictEqual([])
    const allowed = (s: string): boolean =>
      ['better-sqlite3', 'drizzle-orm', 'zod'].some((d) => s === d || s.startsWith(`${d}/`)) ||
      s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
  })

  it('keeps @strands-agents/sdk and pg out of the ai-sdk entry, which loads ai', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/adapters/ai-sdk/index.js'))
    const allowed = (s: string): boolean =>
      ['ai', 'better-sqlite3', 'drizzle-orm', 'zod'].some((d) => s === d || s.startsWith(`${d}/`)) ||
      s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
    expect([...bare]).toContain('ai')
  })

  it('keeps @strands-agents/sdk, ai and pg out of the openai-agents entry, which loads @openai/agents', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/adapters/openai-agents/index.js'))
    const allowed = (s: string): boolean =>
      ['@openai/agents', 'better-sqlite3', 'drizzle-orm', 'zod'].some(
        (d) => s === d || s.startsWith(`${d}/`),
      ) || s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
    expect([...bare]).toContain('@openai/agents')
  })

  it('keeps @strands-agents/sdk, @openai/agents, ai and pg out of the langchain entry, which loads langchain and @langchain/core', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/adapters/langchain/index.js'))
    const allowed = (s: string): boolean =>
      ['langchain', '@langchain/core', 'better-sqlite3', 'drizzle-orm', 'zod'].some(
        (d) => s === d || s.startsWith(`${d}/`),
      ) || s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
    expect([...bare]).toContain('langchain')
    expect([...bare].some((s) => s.startsWith('@langchain/core/'))).toBe(true)
  })

  it('keeps every other framework and pg out of the claude-agent-sdk entry, which loads @anthropic-ai/claude-agent-sdk', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/adapters/claude-agent-sdk/index.js'))
    const allowed = (s: string): boolean =>
      ['@anthropic-ai/claude-agent-sdk', 'better-sqlite3', 'drizzle-orm', 'zod'].some(
        (d) => s === d || s.startsWith(`${d}/`),
      ) || s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
    expect([...bare]).toContain('@anthropic-ai/claude-agent-sdk')
  })

  it('keeps better-sqlite3 and @strands-agents/sdk out of the postgres entry, which loads pg', () => {
    const { bare } = importGraph(join(unpacked, 'package/dist/backends/postgres/index.js'))
    const allowed = (s: string): boolean =>
      ['pg', 'drizzle-orm', 'zod'].some((d) => s === d || s.startsWith(`${d}/`)) || s.startsWith('node:')
    expect([...bare].filter((s) => !allowed(s))).toStrictEqual([])
    expect([...bare]).toContain('pg')
  })

  it('passes publint, warnings included', async () => {
    const { stdout } = await runTool('publint', 'src/cli.js', ['run', tarball, '--strict'], repoRoot)
    expect(stdout).toContain('All good!')
  }, 120_000)

  // .attw.json ignores one rule, cjs-resolves-to-esm: attw checks with TypeScript 5.6, before TypeScript
  // (5.8) and Node (20.19, 22.12) could require() an ES module; consumer.test.ts shows require() working
  // from CommonJS and typechecking from a .cts file.
  it('passes Are the Types Wrong for every entry and resolution', async () => {
    const config = join(repoRoot, '.attw.json')
    await runTool('@arethetypeswrong/cli', 'dist/index.js', [tarball, '--config-path', config], repoRoot)
  }, 120_000)
})
