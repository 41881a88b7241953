#!/usr/bin/env node
/**
 * The `context-ledger` executable (`npx context-ledger --help`): runs the command line on the process's
 * streams and exits with its code.
 */
import { processIo } from './io.js'
import { runCli } from './program.js'

// A reader that went away (`context-ledger export … | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})
process.exitCode = await runCli(process.argv.slice(2), processIo())
