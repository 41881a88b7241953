/**
 * Runs the ```ts snippets of docs/langchain.md and the README's LangChain start as written. A snippet
 * that opens its own store (`const store = …`) is a module of its own; any other is a fragment and
 * continues the doc's quick start (its code first, the fragment in a block of its own, so it may declare
 * `agent` or `ledger` again; the imports of both merged). Each is saved as a module inside the repository
 * whose imports of `context-ledger`, `context-ledger/langchain` and `context-ledger/postgres` point at
 * the sources, whose `agent.db` / `chat.db` / `checkpoints.db` are files of a temp directory, and which
 * gets the names the docs leave to the reader: `model` (the demo's scripted support model, no network)
 * and `summaryModel` (a LangChain fake chat model). Its names are handed back through a probe on
 * `globalThis`, so a test can go on with what the snippet built.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { codeBlocks, readRepoFile, ROOT } from './markdown.js'

/** The names a snippet's probe hands back (undefined when the snippet has none). */
export const PROBED = [
  'agent',
  'chain',
  'checkpointer',
  'config',
  'ledger',
  'model',
  'store',
  'summaryModel',
  'thread',
  'tools',
] as const

/** What a snippet built, by name. */
export type Probe = Partial<Record<(typeof PROBED)[number], unknown>>

/** The ```ts blocks of docs/langchain.md. */
export const docBlocks = (): string[] => codeBlocks(readRepoFile('docs/langchain.md'), 'ts')

/** Whether a block is a module of its own (it opens its store), else a fragment of the quick start. */
export const isModule = (block: string): boolean => /^const store = /mu.test(block)

/** Whether a block needs a PostgreSQL server. */
export const isPostgres = (block: string): boolean => block.includes("from 'context-ledger/postgres'")

const SOURCES: Record<string, string> = {
  'context-ledger/langchain': 'src/adapters/langchain/index.js',
  'context-ledger/postgres': 'src/backends/postgres/index.js',
  'context-ledger': 'src/index.js',
}

/** The readers' names, defined when a snippet uses them without defining them. */
const PRELUDE: Record<string, { imports: string; code: string }> = {
  model: {
    imports: `import { SupportModel as __SupportModel } from '${ROOT}examples/langchain-demo-model.js'`,
    code: 'const model = new __SupportModel()',
  },
  summaryModel: {
    imports: `import { fakeModel as __fakeModel } from '@langchain/core/testing'
import { AIMessage as __AIMessage } from '@langchain/core/messages'`,
    code: `const summaryModel = __fakeModel()
for (let i = 0; i < 200; i++)
  summaryModel.respond((messages) => new __AIMessage(\`Summary \${i} of \${messages.length - 2} messages.\`))`,
  },
}

const IMPORT = /^import \{([^}]*)\} from '([^']+)'\n?/gmu

/** A block's imports, as name → module, and the rest of its code. */
function splitImports(block: string): { imports: Map<string, string>; body: string } {
  const imports = new Map<string, string>()
  for (const m of block.matchAll(IMPORT))
    for (const name of (m[1] ?? '').split(',').map((n) => n.trim()))
      if (name !== '') imports.set(name, m[2] ?? '')
  const body = block.replace(IMPORT, '')
  if (/^import /mu.test(body)) throw new Error(`an import the doc runner cannot read:\n${block}`)
  return { imports, body }
}

/** Import lines for name → module, one per module, the package's specifiers pointing at the sources. */
function importLines(imports: Map<string, string>): string {
  const byModule = new Map<string, string[]>()
  for (const [name, from] of imports) byModule.set(from, [...(byModule.get(from) ?? []), name])
  return [...byModule]
    .map(([from, names]) => {
      const source = SOURCES[from]
      return `import { ${names.join(', ')} } from '${source === undefined ? from : `${ROOT}${source}`}'`
    })
    .join('\n')
}

/** Where a snippet's files go. */
export interface SnippetFiles {
  /** The path of `agent.db`. */
  readonly agentDb: string
  /** The path of `chat.db`. */
  readonly chatDb: string
  /** The path of `checkpoints.db`. */
  readonly checkpointsDb: string
}

/**
 * A snippet as the code of a runnable module (see the module comment).
 *
 * @param block - the snippet
 * @param base - the quick start, which a fragment continues
 * @param files - its files
 * @returns the module's code
 */
export function runnable(block: string, base: string, files: SnippetFiles): string {
  const own = splitImports(block)
  const start = isModule(block) || isPostgres(block) ? undefined : splitImports(base)
  const imports = new Map([...(start?.imports ?? []), ...own.imports])
  // The probe runs where the snippet's names are in scope: inside a fragment's block, at a module's end.
  const probe = `Object.assign(globalThis.__langchainDoc, { ${PROBED.map((n) => `${n}: typeof ${n} === 'undefined' ? undefined : ${n}`).join(', ')} })`
  const body = start === undefined ? `${own.body}\n${probe}` : `${start.body}\n{\n${own.body}\n${probe}\n}`
  const written = `${start?.body ?? ''}\n${own.body}`
  const needed = Object.keys(PRELUDE).filter(
    (name) =>
      new RegExp(`\\b${name}\\b`, 'u').test(written) && !new RegExp(`const ${name} =`, 'u').test(written),
  )
  const code = [
    importLines(imports),
    ...needed.map((n) => PRELUDE[n]?.imports ?? ''),
    ...needed.map((n) => PRELUDE[n]?.code ?? ''),
    body,
  ].join('\n')
  return code
    .replaceAll(`'agent.db'`, JSON.stringify(files.agentDb))
    .replaceAll(`'chat.db'`, JSON.stringify(files.chatDb))
    .replaceAll(`'checkpoints.db'`, JSON.stringify(files.checkpointsDb))
}

/**
 * A directory for generated modules, inside the repository so they resolve its node_modules.
 *
 * @param name - its name (the process id is added)
 * @returns its path, and `cleanup()` that removes it
 */
export function moduleDir(name: string): { path: string; cleanup: () => void } {
  const path = join(ROOT, '.tmp', `${name}-${process.pid}`)
  mkdirSync(path, { recursive: true })
  return {
    path,
    cleanup: () => {
      rmSync(path, { recursive: true, force: true })
    },
  }
}

/**
 * Saves a snippet as a module and imports it (it runs), collecting what it printed.
 *
 * @param code - from {@link runnable}
 * @param file - where to save it
 * @returns what it printed with `console.log` (each call's argument, or its arguments as an array) and
 *   its probe
 */
export async function runModule(code: string, file: string): Promise<{ logged: unknown[]; probe: Probe }> {
  const probe: Probe = {}
  ;(globalThis as { __langchainDoc?: Probe }).__langchainDoc = probe
  writeFileSync(file, code)
  const logged: unknown[] = []
  const log = console.log
  console.log = (...args: unknown[]) => {
    logged.push(args.length === 1 ? args[0] : args)
  }
  try {
    await import(file)
  } finally {
    console.log = log
  }
  return { logged, probe }
}
