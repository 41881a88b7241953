/**
 * `context-ledger backup <file> <destination>`: an online, consistent copy (SQLite's backup API, or
 * `VACUUM INTO` with `--compact`), written beside the destination and renamed into place — safe while
 * agents write to the file. Works on a file at an older schema too (it is copied as it is, not upgraded).
 */
import { ContextLedgerError } from '../../errors.js'
import { CliError, fromLedgerError } from '../errors.js'
import { count, visible } from '../format.js'
import { inspect, openStore } from '../open-ledger.js'
import type { CommandContext } from '../program.js'

/**
 * Runs `backup`.
 *
 * @param ctx - output
 * @param file - the ledger
 * @param destination - the copy
 * @param options - `json`, `overwrite`, `compact`
 * @returns the exit code
 */
export async function backup(
  ctx: CommandContext,
  file: string,
  destination: string,
  options: { json?: boolean; overwrite?: boolean; compact?: boolean },
): Promise<number> {
  const ledger = inspect(file, { older: true })
  const store = ledger.kind === 'current' ? await openStore(file) : undefined
  try {
    const args = { overwrite: options.overwrite === true, compact: options.compact === true }
    let result
    try {
      if (store !== undefined) result = await store.backup(destination, args)
      else {
        const { backupDatabase, checkBackupArgs } = await import('../../store/lifecycle.js')
        result = await backupDatabase(ledger.db, file, checkBackupArgs(file, destination, args))
      }
    } catch (error) {
      if (error instanceof ContextLedgerError && error.code === 'INVALID_OPTIONS')
        throw new CliError(
          `${destination}: ${error.message.replace(/^Invalid destination: /, '').replace('pass { overwrite: true } to replace it', 'pass --overwrite to replace it')}`,
          'USAGE',
        )
      if (error instanceof ContextLedgerError) throw fromLedgerError(error, destination)
      throw error
    }
    if (options.json === true)
      ctx.out.json({
        file,
        destination: result.path,
        pages: result.pages,
        schemaVersion: ledger.schemaVersion,
      })
    else ctx.out.note(`backed up ${visible(file)} to ${visible(result.path)} (${count(result.pages)} pages)`)
    return 0
  } finally {
    store?.close()
    ledger.db.close()
  }
}
