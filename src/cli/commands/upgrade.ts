/**
 * `context-ledger upgrade <file>`: migrates a file written by an older context-ledger to this version's
 * schema, in one transaction (what opening it with the library does). The only command besides `import`
 * that writes: read commands never upgrade a file they look at.
 */
import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { ContextLedgerError } from '../../errors.js'
import { readIntegerPragma } from '../../db/pragmas.js'
import { openContextStore } from '../../store/context-store.js'
import { CliError, fromLedgerError } from '../errors.js'
import { currentSchemaVersion } from '../open-ledger.js'
import type { CommandContext } from '../program.js'

/**
 * Runs `upgrade`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param options - `json`
 * @returns the exit code
 */
export function upgrade(ctx: CommandContext, file: string, options: { json?: boolean }): number {
  if (!existsSync(file))
    throw new CliError(
      `${file}: no such file; check the path (upgrade never creates a ledger)`,
      'FILE_NOT_FOUND',
    )
  let from: number
  try {
    // The store checks the file is a ledger first; its version is read before anything is changed.
    openContextStore(file, { readonly: true }).close()
    from = currentSchemaVersion()
  } catch (error) {
    if (!(error instanceof ContextLedgerError)) throw error
    if (error.code !== 'SCHEMA_TOO_OLD') throw fromLedgerError(error, file)
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      from = readIntegerPragma(db, 'user_version')
    } finally {
      db.close()
    }
    if (from === 0)
      throw new CliError(
        `${file} is an empty database, not a context-ledger file; nothing was changed`,
        'NOT_A_LEDGER',
      )
  }
  const to = currentSchemaVersion()
  if (from !== to) {
    try {
      openContextStore(file, { mustExist: true }).close()
    } catch (error) {
      if (error instanceof ContextLedgerError) throw fromLedgerError(error, file)
      throw error
    }
  }
  if (options.json === true) ctx.out.json({ file, from, to, upgraded: from !== to })
  else
    ctx.out.note(
      from === to
        ? `${file} is already at schema version ${to}; nothing to do`
        : `upgraded ${file} from schema version ${from} to ${to}`,
    )
  return 0
}
