/**
 * `context-ledger import <file> [--as <id>] [-i in.jsonl]`: restores what `export` wrote — one session,
 * or a session and the branches below it (`export --tree`) — with every ledger fact, into a file (created
 * if it does not exist).
 *
 * Every line is read and checked first (`import-parse.ts`) — its JSON, its fields (`export-format.ts`),
 * and what ties lines together (dense seqs, counts as the header says, references to messages and
 * summaries that exist) — and the sessions are put in order, each branch after its parent, which must
 * be in the input or in the file (`import-tree.ts`): a malformed line, a parent chain that loops or a
 * missing parent is refused before anything is written, and the write lock is not held while the input
 * arrives. Then one transaction writes every session's rows as they were (the first one under the id
 * `--as` names, if given), and checks each one and the tree they make before it commits; an existing
 * session id is refused. Holds the parsed input in memory meanwhile (about the size of the export). A
 * file that does not exist is built under a temporary name and published, never over a file that
 * appeared meanwhile (`import-target.ts`).
 */
import { existsSync, statSync } from 'node:fs'
import { ContextLedgerError } from '../../errors.js'
import { prepareSpec } from '../../db/typed-statement.js'
import { SEARCH_WRITE_STATEMENTS } from '../../db/search-statements.js'
import { checkTree } from '../../check/tree-rules.js'
import { checkSessionId, openContextStore, type ContextStore } from '../../store/context-store.js'
import { CliError, fromLedgerError } from '../errors.js'
import { refuseInvalidImport } from '../import-check.js'
import { firstSeqOf, parseExport, type Parsed } from '../import-parse.js'
import { importTarget } from '../import-target.js'
import { planImport, type Planned } from '../import-tree.js'
import { prepareWrites } from '../import-statements.js'
import { writeSession, type Written } from '../import-write.js'
import { count, visible } from '../format.js'
import { currentSchemaVersion, importOlderSchemaMessage, inspect } from '../open-ledger.js'
import { Progress } from '../progress.js'
import { exportLines } from '../read-lines.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'

/** Refuses an export of another schema version than this context-ledger's. */
function checkSchema(blocks: readonly Parsed[]): void {
  const current = currentSchemaVersion()
  for (const { header, headerLine: line } of blocks) {
    if (header.schemaVersion > current)
      throw new CliError(
        `line ${line}: the export was made from a ledger at schema version ${header.schemaVersion}, newer than this context-ledger's ${current}; upgrade context-ledger to import it`,
        'SCHEMA_TOO_NEW',
      )
    if (header.schemaVersion < current)
      throw new CliError(
        `line ${line}: the export was made from a ledger at schema version ${header.schemaVersion}; this context-ledger imports exports of version ${current}: export it again with this version (after context-ledger upgrade on the source file)`,
        'SCHEMA_TOO_OLD',
      )
  }
}

/**
 * Writes every planned session, parents first, then what they name of each other, and checks them all;
 * throws (rolling the caller's transaction back) at the first problem.
 */
function writeAll(
  store: ContextStore,
  file: string,
  plan: readonly Planned[],
  rename: (id: string) => string,
  progress: Progress,
): void {
  let done = 0
  const onMessage = (): void => {
    if (++done % 1000 === 0) progress.update(done)
  }
  const db = store.connection()
  const w = prepareWrites(db)
  const pkOf = prepareSpec(db, CLI_READS.sessionPk)
  const written = new Map<string, Written>()
  for (const p of plan) {
    if (pkOf.get(p.id) !== undefined)
      throw new CliError(
        `${file} already has a session "${p.id}"; nothing was imported. Import it under another id with --as <newId>`,
        'SESSION_EXISTS',
      )
    const parent = p.parentId === undefined ? undefined : pkOf.get(p.parentId)
    if (p.parentId !== undefined && parent === undefined)
      throw new CliError(
        `session "${p.id}" is a branch of "${p.parentId}", which ${file} no longer holds; nothing was imported`,
        'INVALID_OPTIONS',
      )
    written.set(p.id, writeSession(db, w, p.parsed, p.id, parent, rename, onMessage))
  }
  // A rewind's row names its abandoned branch, which the input may hold after it.
  for (const [id, x] of written)
    for (const e of x.rewinds) {
      const named = e.abandoned ?? null
      const abandoned = named === null ? null : pkOf.get(rename(named))
      if (abandoned === undefined)
        throw new CliError(
          `session "${id}": a rewind's row names the abandoned branch "${rename(named ?? '')}", which is neither in the input nor in the file; nothing was imported`,
          'INVALID_OPTIONS',
        )
      w.insertEviction.run(
        x.pk,
        e.toSeq,
        e.version,
        e.fromSeq,
        e.at,
        e.cut,
        e.reason,
        abandoned,
        e.clock ?? null,
      )
    }
  const tree = checkTree(db).problems.find((t) => written.has(t.sessionId))
  if (tree !== undefined)
    throw new CliError(
      `session "${tree.sessionId}": ${tree.rule} — ${tree.detail}; nothing was imported`,
      'INVALID_EXPORT',
    )
  for (const p of plan) {
    const x = written.get(p.id)
    if (x !== undefined)
      refuseInvalidImport(store, p.id, { ...p.parsed, firstSeq: firstSeqOf(p.parsed.header) }, x.summaryIds)
  }
  // Summaries enter the full-text index in the transaction that writes them, from the same view as every
  // other write; the messages wait above the index's watermark like appended ones, and this
  // transaction's commit indexes them when they make a batch (docs/design.md, "Recall").
  const ids = [...written.values()].flatMap((x) => [...x.summaryIds.values()])
  if (ids.length > 0) prepareSpec(db, SEARCH_WRITE_STATEMENTS.indexSummariesFrom).run(-Math.min(...ids))
}

/**
 * Runs `import`.
 *
 * @param ctx - output
 * @param file - the ledger to import into (created when missing)
 * @param options - `as`, `input`, `json`, `progress`; `maxLineBytes` (tests: see `read-lines.ts`)
 * @returns the exit code
 */
export async function importSession(
  ctx: CommandContext,
  file: string,
  options: { as?: string; input?: string; json?: boolean; progress?: boolean; maxLineBytes?: number },
): Promise<number> {
  const lines = exportLines(ctx.io.stdin, options)
  const progress = new Progress(ctx.io, options.progress !== false, 'reading the export')
  const blocks = await parseExport(lines, progress)
  progress.done()
  checkSchema(blocks)
  const first = blocks[0]?.header.session.id ?? ''
  const sessionId = options.as ?? first
  try {
    checkSessionId(sessionId)
  } catch (error) {
    throw new CliError(`--as: ${error instanceof Error ? error.message : String(error)}`, 'USAGE')
  }
  const rename = (id: string): string => (id === first ? sessionId : id)
  // An existing file at an older schema is refused, not upgraded on the side (an empty one becomes a ledger).
  const existing = existsSync(file) && statSync(file).size > 0
  let inFile: (id: string) => boolean = () => false
  if (existing) {
    const found = inspect(file, { older: true })
    try {
      if (found.kind === 'older')
        throw new CliError(
          importOlderSchemaMessage(file, found.schemaVersion, found.current),
          'SCHEMA_TOO_OLD',
        )
      const ids = new Set(prepareSpec(found.db, CLI_READS.sessionIds).all())
      inFile = (id) => ids.has(id)
    } finally {
      found.db.close()
    }
  }
  const plan = planImport(blocks, options.as, inFile)
  // A new file is built under a temporary name and published when complete (`import-target.ts`).
  const target = importTarget(file)
  let store
  try {
    store = openContextStore(target.path)
  } catch (error) {
    target.discard()
    if (error instanceof ContextLedgerError) throw fromLedgerError(error, file)
    throw error
  }
  try {
    const messages = blocks.reduce((n, b) => n + b.messages.length, 0)
    const written = new Progress(ctx.io, options.progress !== false, `importing ${sessionId}`, messages)
    store.batch(sessionId, () => {
      writeAll(store, file, plan, rename, written)
    })
    written.done()
    store.close()
    target.publish()
    report(ctx, file, sessionId, blocks, options.json === true)
    return 0
  } finally {
    store.close()
    target.discard()
  }
}

/** What was imported, as a line on stderr or `--json` on stdout. */
function report(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  blocks: readonly Parsed[],
  json: boolean,
): void {
  const head = blocks[0]
  const sum = (f: (b: Parsed) => number): number => blocks.reduce((n, b) => n + f(b), 0)
  const result = {
    file,
    sessionId,
    format: head?.header.session.format ?? 'strands',
    messages: sum((b) => b.messages.length),
    toolCalls: sum((b) => b.toolCalls.length),
    pinEvents: sum((b) => b.pinEvents.length),
    edits: sum((b) => b.edits.length),
    summaries: sum((b) => b.summaries.length),
    ...(blocks.length > 1
      ? { sessions: blocks.map((b) => (b === head ? sessionId : b.header.session.id)) }
      : {}),
  }
  if (json) ctx.out.json(result)
  else
    ctx.out.note(
      `imported session "${visible(sessionId)}"${blocks.length > 1 ? ` and ${count(blocks.length - 1)} branch${blocks.length === 2 ? '' : 'es'} below it` : ''} into ${visible(file)}: ${count(result.messages)} messages, ${count(result.toolCalls)} tool calls, ${count(result.pinEvents)} pin events, ${count(result.edits)} edits, ${count(result.summaries)} summaries`,
    )
}
