/**
 * `context-ledger upgrade <file>`: migrates a file written by an older context-ledger to this version's
 * schema, in one transaction (what opening it with the library does). The only command besides `import`
 * that writes: read commands never upgrade a file they look at.
 */
import { ContextLedgerError } from '../../errors.js'
import { openContextStore } from '../../store/context-store.js'
import { fromLedgerError } from '../errors.js'
import { visible } from '../format.js'
import { inspect } from '../open-ledger.js'
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
  // What the file is and its version, read before anything is changed.
  const found = inspect(file, { older: true })
  found.db.close()
  const from = found.schemaVersion
  const to = found.current
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
        ? `${visible(file)} is already at schema version ${to}; nothing to do`
        : `upgraded ${visible(file)} from schema version ${from} to ${to}`,
    )
  return 0
}
