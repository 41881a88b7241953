/**
 * docs/api.md documents the whole public API: every value each entry exports has a heading, and every
 * public method of the classes a program calls (the store, both managers, `LedgerSession` and
 * `LedgerChatMessageHistory`) has a heading in its class's section. The names come from the code — the
 * runtime exports of `src/index.ts`, `src/adapters/strands/index.ts`, `src/adapters/openai-agents/index.ts`,
 * `src/adapters/langchain/index.ts` and `src/adapters/claude-agent-sdk/index.ts`, the methods from the compiler's view of each class — so a new
 * export or method without docs fails here, and a removed one needs nothing. Names tagged `@internal` are
 * not public.
 */
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { headings, readRepoFile, ROOT, type Heading } from './markdown.js'

const ENTRIES = {
  'context-ledger': 'src/index.ts',
  'context-ledger/strands': 'src/adapters/strands/index.ts',
  'context-ledger/openai-agents': 'src/adapters/openai-agents/index.ts',
  'context-ledger/langchain': 'src/adapters/langchain/index.ts',
  'context-ledger/claude-agent-sdk': 'src/adapters/claude-agent-sdk/index.ts',
} as const
type Entry = keyof typeof ENTRIES

/** The classes whose methods each need a heading, and the heading of the section that documents them. */
const CLASS_SECTIONS: readonly { entry: Entry; name: string; section: string }[] = [
  { entry: 'context-ledger', name: 'ContextStore', section: 'class ContextStore' },
  {
    entry: 'context-ledger',
    name: 'PersistentConversationManager',
    section: 'class PersistentConversationManager (context-ledger)',
  },
  {
    entry: 'context-ledger/strands',
    name: 'PersistentConversationManager',
    section: 'class PersistentConversationManager (context-ledger/strands)',
  },
  {
    entry: 'context-ledger/openai-agents',
    name: 'LedgerSession',
    section: 'class LedgerSession (context-ledger/openai-agents)',
  },
  {
    entry: 'context-ledger/langchain',
    name: 'LedgerChatMessageHistory',
    section: 'class LedgerChatMessageHistory (context-ledger/langchain)',
  },
  {
    entry: 'context-ledger/claude-agent-sdk',
    name: 'LedgerSessionStore',
    section: 'class LedgerSessionStore (context-ledger/claude-agent-sdk)',
  },
]

const api = headings(readRepoFile('docs/api.md'))

/** Heading text without inline-code marks. */
const plain = (h: Heading): string => h.text.replace(/`/g, '')

function escape(name: string): string {
  return name.replace(/[$]/g, '\\$&')
}

/** Whether some heading names `name` as a whole identifier (not as `.name`, a method). */
function hasHeadingFor(name: string): boolean {
  const word = new RegExp(`(^|[^\\w$.])${escape(name)}([^\\w$]|$)`)
  return api.some((h) => word.test(plain(h)))
}

/** The headings of the section whose heading text is `section`, up to the next heading of its level. */
function sectionHeadings(section: string): Heading[] | undefined {
  const start = api.findIndex((h) => plain(h) === section)
  const head = api[start]
  if (head === undefined) return undefined
  const end = api.findIndex((h, i) => i > start && h.level <= head.level)
  return api.slice(start + 1, end === -1 ? undefined : end)
}

/** Whether a method has a `.name(…)` heading in its class's section, or one elsewhere naming the class. */
function hasMethodHeading(section: Heading[], className: string, method: string): boolean {
  const own = new RegExp(`^\\.${escape(method)}\\(`)
  return (
    section.some((h) => own.test(plain(h))) ||
    api.some((h) => own.test(plain(h)) && plain(h).includes(`(${className})`))
  )
}

interface EntryFacts {
  /** Value exports at runtime, minus those tagged `@internal`. */
  readonly values: string[]
  /** Public, non-internal methods declared in src/ for each exported class. */
  readonly methods: Map<string, string[]>
}

function isInternal(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((t) => t.tagName.text === 'internal')
}

function publicMethods(checker: ts.TypeChecker, symbol: ts.Symbol): string[] {
  const type = checker.getDeclaredTypeOfSymbol(symbol)
  const names: string[] = []
  for (const member of checker.getPropertiesOfType(type)) {
    const decl = member.valueDeclaration ?? member.declarations?.[0]
    if (decl === undefined || !ts.isMethodDeclaration(decl)) continue
    if (!decl.getSourceFile().fileName.startsWith(`${ROOT}src/`)) continue // inherited from a dependency
    if ((ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0)
      continue
    if (member.name.startsWith('#') || isInternal(decl)) continue
    names.push(member.name)
  }
  return names
}

async function entryFacts(program: ts.Program, entry: Entry): Promise<EntryFacts> {
  const file = ENTRIES[entry]
  const runtime = Object.keys((await import(`${ROOT}${file}`)) as Record<string, unknown>)
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(`${ROOT}${file}`)
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source)
  if (moduleSymbol === undefined) throw new Error(`the compiler cannot read ${file}`)
  const internal = new Set<string>()
  const methods = new Map<string, string[]>()
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    if ((target.declarations ?? []).some(isInternal)) internal.add(exported.name)
    if (target.flags & ts.SymbolFlags.Class) methods.set(exported.name, publicMethods(checker, target))
  }
  return { values: runtime.filter((name) => !internal.has(name)), methods }
}

const facts = new Map<Entry, EntryFacts>()

beforeAll(async () => {
  // Only our own sources are read: the names and modifiers needed here are all declared in src/, and
  // parsing the libraries' declarations (the Strands SDK, Node, the standard library) would cost seconds.
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noLib: true,
    noResolve: false,
    types: [],
    noEmit: true,
  }
  const host = ts.createCompilerHost(options)
  const readSource = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, ...rest) =>
    fileName.startsWith(`${ROOT}src/`) ? readSource(fileName, ...rest) : undefined
  const program = ts.createProgram(
    Object.values(ENTRIES).map((f) => `${ROOT}${f}`),
    options,
    host,
  )
  for (const entry of Object.keys(ENTRIES) as Entry[]) facts.set(entry, await entryFacts(program, entry))
}, 60_000)

function factsOf(entry: Entry): EntryFacts {
  const f = facts.get(entry)
  if (f === undefined) throw new Error(`no facts for ${entry}`)
  return f
}

describe('docs/api.md covers the API', () => {
  it.each(Object.keys(ENTRIES) as Entry[])('every value %s exports has a heading', (entry) => {
    const { values } = factsOf(entry)
    expect(values.length).toBeGreaterThan(0)
    expect(values.filter((name) => !hasHeadingFor(name))).toEqual([])
  })

  it.each(CLASS_SECTIONS)(
    'every public method of $name ($entry) has a heading in "$section"',
    ({ entry, name, section }) => {
      const methods = factsOf(entry).methods.get(name)
      if (methods === undefined) return // no longer exported by this entry: nothing to document
      const headingsOfSection = sectionHeadings(section)
      expect(headingsOfSection, `docs/api.md needs a "## ${section}" section`).toBeDefined()
      expect(methods.length).toBeGreaterThan(0)
      expect(methods.filter((m) => !hasMethodHeading(headingsOfSection ?? [], name, m))).toEqual([])
    },
  )
})
