/**
 * The `context-ledger` command line: its commands, their arguments and help (commander), and how a run
 * ends — exit code 0 (fine), 1 (`check` found a problem), 2 (a usage error, or a file or session that
 * cannot be used), with one line on stderr for every failure and no stack trace. Each command lives in
 * `commands/` and is loaded only when it runs, so `--help` and a quick `sessions` start fast.
 */
import { createRequire } from 'node:module'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { ContextLedgerError } from '../errors.js'
import { CliError, EXIT, fromLedgerError } from './errors.js'
import { Output, type CliIo } from './io.js'
import { changedDuringRead } from './other-user.js'

/** What every command receives. */
export interface CommandContext {
  /** Where it writes. */
  readonly out: Output
  /** The streams and environment. */
  readonly io: CliIo
}

/** A command's implementation: resolves to its exit code. */
export type CommandRun<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<number> | number

function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('../../package.json') as { version?: unknown }
  return typeof manifest.version === 'string' ? manifest.version : 'unknown'
}

function int(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a whole number ≥ 0.')
  return n
}

const EXAMPLES = `
Examples:
  context-ledger sessions agent.db
  context-ledger window agent.db support-42 --explain
  context-ledger history agent.db support-42 --from 100 --limit 50
  context-ledger branches agent.db support-42
  context-ledger export agent.db support-42 > s.jsonl
  context-ledger import other.db < s.jsonl
  context-ledger check agent.db

Read commands open the file read-only and never change or upgrade it. Exit codes: 0 fine, 1 check found
a problem, 2 a usage error or a file or session that cannot be used. --json prints a stable shape
(docs/cli.md in the package).`

/**
 * Runs the command line.
 *
 * @param argv - the arguments after the program's name
 * @param io - the streams and environment
 * @returns the exit code
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = new Output(io)
  const ctx: CommandContext = { out, io }
  let code: number = EXIT.ok
  const state = { json: false }
  // A usage error as commander words it, made one line here: it is reported with the others below.
  let usage: string | undefined
  const program = new Command('context-ledger')
  program
    .description('Inspect a context-ledger file: what is in it, what the model sees, and why.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s) => {
        usage = s
          .replace(/^error: /, '')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '')
          .join(' ')
          .replace(/\.$/, '')
        // A session id that starts with '-' (a Claude Agent SDK project key made from a path) reads as
        // an option: say how to pass it.
        const option = /^unknown option '(-[^']*)'/u.exec(usage)?.[1]
        if (option !== undefined && !option.startsWith('--'))
          usage += ` (a session id starting with '-' goes after '--': <command> <file> -- ${option})`
      },
    })
    .addHelpText('after', EXAMPLES)

  /** Registers a command whose module is loaded when it runs. */
  const define = <A extends unknown[]>(
    name: string,
    description: string,
    load: () => Promise<CommandRun<A>>,
  ): Command =>
    program
      .command(name)
      .description(description)
      .option('--json', 'print JSON (a stable shape, see docs/cli.md)')
      .action(async (...args: unknown[]) => {
        const command = args.at(-1) as Command
        const opts = command.opts<{ json?: boolean }>()
        state.json = opts.json === true
        const run = await load()
        code = await run(ctx, ...(args.slice(0, -1) as A))
      })

  define<[string, { json?: boolean; sort?: string }]>(
    'sessions <file>',
    'every session: messages, window, tokens, pins, summaries, last change',
    async () => (await import('./commands/sessions.js')).sessions,
  ).addOption(
    new Option('--sort <key>', 'order by').choices(['id', 'updated', 'messages', 'tokens']).default('id'),
  )

  define<[string, string | undefined, { json?: boolean }]>(
    'branches <file> [session]',
    'the tree of branches holding a session (or every tree): parent, fork point, who, when, why',
    async () => (await import('./commands/branches.js')).branches,
  )

  define<[string, string, { json?: boolean; explain?: boolean; full?: boolean }]>(
    'window <file> <session>',
    'the messages the model sees; --explain says why each is there',
    async () => (await import('./commands/window.js')).window,
  )
    .option('--explain', 'why each message is in the window, the boundary and the limits')
    .option('--full', 'show whole messages instead of one line each')

  define<[string, string, { json?: boolean; from: number; limit: number; full?: boolean }]>(
    'history <file> <session>',
    'the archive: every message, evicted ones included',
    async () => (await import('./commands/history.js')).history,
  )
    .option('--from <seq>', 'first seq', int, 0)
    .option('--limit <n>', 'most messages', int, 50)
    .option('--full', 'show whole messages instead of one line each')

  define<[string, { json?: boolean; session?: string; actor?: string }]>(
    'pins <file>',
    'pinned messages: who pinned them, when and why',
    async () => (await import('./commands/pins.js')).pins,
  )
    .option('--session <id>', 'one session only')
    .option('--actor <name>', 'pins of this actor only (user, agent, strands, append, …)')

  define<
    [string, string, { json?: boolean; session?: string; limit: number; scan?: boolean; fts5?: boolean }]
  >(
    'search <file> <text>',
    'messages that match <text> (every word, by the full-text index), evicted ones included',
    async () => (await import('./commands/search.js')).search,
  )
    .option('--session <id>', 'one session only')
    .option('--limit <n>', 'most matches', int, 20)
    .option('--scan', 'find <text> as a substring by reading every message (no index)')
    .option('--fts5', '<text> is FTS5 query syntax: prefix*, OR, NOT, NEAR(…)')

  define<[string, string, { json?: boolean }]>(
    'evictions <file> <session>',
    'what left the window, and what stands for it now',
    async () => (await import('./commands/evictions.js')).evictions,
  )

  define<[string, { json?: boolean }]>(
    'stats <file>',
    'the file (size, WAL, pages, schema) and messages and tokens per session',
    async () => (await import('./commands/stats.js')).stats,
  )

  define<[string, { json?: boolean; session?: string; progress?: boolean }]>(
    'check <file>',
    'integrity check, and every window rule re-verified from the archive (exit 1 on a problem)',
    async () => (await import('./commands/check.js')).check,
  )
    .option('--session <id>', 'check the window rules of one session only')
    .option('--no-progress', 'no progress on stderr')

  define<[string, string, { json?: boolean; output?: string; progress?: boolean; tree?: boolean }]>(
    'export <file> <session>',
    'one session as JSON lines, with every ledger fact (to stdout, or --output)',
    async () => (await import('./commands/export.js')).exportSession,
  )
    .option('-o, --output <path>', 'write to this file instead of stdout')
    .option('--tree', 'the session and every branch below it')
    .option('--no-progress', 'no progress on stderr')

  define<[string, { json?: boolean; as?: string; input?: string; progress?: boolean }]>(
    'import <file>',
    'restore a session exported by export (from stdin, or --input); creates the file if needed',
    async () => (await import('./commands/import.js')).importSession,
  )
    .option('--as <id>', 'store it under this session id')
    .option('-i, --input <path>', 'read this file instead of stdin')
    .option('--no-progress', 'no progress on stderr')

  define<[string, string, { json?: boolean; overwrite?: boolean; compact?: boolean }]>(
    'backup <file> <destination>',
    'an online, consistent copy of the file (safe while agents write to it)',
    async () => (await import('./commands/backup.js')).backup,
  )
    .option('--overwrite', 'replace an existing destination')
    .option('--compact', 'rebuild the copy packed, with 1 KiB pages')

  define<[string, { json?: boolean }]>(
    'upgrade <file>',
    'bring a file written by an older context-ledger to this version (writes the file)',
    async () => (await import('./commands/upgrade.js')).upgrade,
  )

  try {
    await program.parseAsync([...argv], { from: 'user' })
    const changed = changedDuringRead()
    if (changed !== undefined) throw changed
    return code
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok
      // Help shown for a missing command: commander has written it.
      if (usage === undefined) return EXIT.unusable
      const message = `${usage}; see context-ledger --help, or context-ledger <command> --help`
      out.note(out.errColor.red(`context-ledger: ${message}`))
      if (argv.includes('--json')) out.json({ error: { code: 'USAGE', message } })
      return EXIT.unusable
    }
    // A file read without locks that changed meanwhile explains any error its reading met.
    const failure =
      changedDuringRead() ??
      (error instanceof CliError
        ? error
        : error instanceof ContextLedgerError
          ? fromLedgerError(error, argv.find((a) => !a.startsWith('-') && a !== argv[0]) ?? 'the file')
          : new CliError(
              `unexpected error: ${error instanceof Error ? error.message : String(error)}`,
              'INTERNAL',
            ))
    out.note(out.errColor.red(`context-ledger: ${failure.message}`))
    if (io.env.CONTEXT_LEDGER_DEBUG !== undefined && error instanceof Error && error.stack !== undefined)
      out.note(error.stack)
    if (state.json) out.json({ error: { code: failure.code, message: failure.message } })
    return failure.exitCode
  }
}
