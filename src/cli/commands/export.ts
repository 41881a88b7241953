/**
 * `context-ledger export <file> <session> [--tree] [-o out.jsonl]`: one session — or, with `--tree`, the
 * session and every branch below it, parents first — as JSON lines with every ledger fact
 * (`export-format.ts`, written by `export-session.ts`). Streams: each table is read by an iterating
 * statement and each line written as it comes, waiting whenever the reader is behind, so memory stays
 * flat however big the session is. Everything is read in one read transaction: the export is one
 * consistent state even while agents write to the file.
 */
import { createWriteStream, openSync, rmSync, type WriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import { prepareSpec } from '../../db/typed-statement.js'
import { CliError, unknownSession } from '../errors.js'
import { writeSessionExport } from '../export-session.js'
import { EXPORT_READS } from '../export-statements.js'
import { count, counted, visible } from '../format.js'
import { jsonFor, writeWaiting, type OutStream } from '../io.js'
import { openStore } from '../open-ledger.js'
import { Progress } from '../progress.js'
import type { CommandContext } from '../program.js'
import { CLI_READS } from '../statements.js'

/** Opens the output file now, so that a path that cannot be written is one line of error, not a crash. */
function openOutput(path: string): WriteStream {
  let fd: number
  try {
    fd = openSync(path, 'w')
  } catch (error) {
    throw new CliError(
      `${path}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      'USAGE',
    )
  }
  return createWriteStream(path, { fd })
}

/**
 * Runs `export`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param sessionId - the session
 * @param options - `output` (a file instead of stdout), `progress`, `tree` (the branches below it too)
 * @returns the exit code
 */
export async function exportSession(
  ctx: CommandContext,
  file: string,
  sessionId: string,
  options: { output?: string; progress?: boolean; tree?: boolean },
): Promise<number> {
  const store = await openStore(file)
  const db = store.connection()
  const fileOut = options.output === undefined ? undefined : openOutput(options.output)
  const sink: OutStream = fileOut ?? ctx.io.stdout
  const write = (value: unknown): Promise<void> =>
    writeWaiting(sink, jsonFor(sink, `${JSON.stringify(value)}\n`))
  let ok = false
  db.exec('BEGIN')
  try {
    const pk = prepareSpec(db, CLI_READS.sessionPk).get(sessionId)
    if (pk === undefined) throw unknownSession(file, sessionId)
    const ids =
      options.tree === true
        ? prepareSpec(db, EXPORT_READS.subtree)
            .all(pk)
            .map((r) => r.id)
        : [sessionId]
    let messages = 0
    for (const id of ids) {
      const total = prepareSpec(db, EXPORT_READS.messageCount).get(
        prepareSpec(db, CLI_READS.sessionPk).get(id) ?? 0,
      )
      const progress = new Progress(ctx.io, options.progress !== false, `exporting ${id}`, total ?? 0)
      messages += await writeSessionExport(db, file, id, write, (done) => {
        progress.update(done)
      })
      progress.done()
    }
    if (fileOut !== undefined) {
      fileOut.end()
      await finished(fileOut)
      const what =
        ids.length === 1
          ? visible(sessionId)
          : `${visible(sessionId)} and ${counted(ids.length - 1, 'branch', 'branches')} below it`
      ctx.out.note(`exported ${what}: ${count(messages)} messages to ${visible(options.output ?? '')}`)
    }
    ok = true
    return 0
  } finally {
    if (db.inTransaction) db.exec('COMMIT')
    store.close()
    if (!ok && fileOut !== undefined) {
      fileOut.destroy()
      rmSync(options.output ?? '', { force: true })
    }
  }
}
