/**
 * The command line's errors: one line saying what went wrong and what to do, and an exit code — never a
 * stack trace (unless `CONTEXT_LEDGER_DEBUG` is set).
 */
import type { ContextLedgerError } from '../errors.js'

/** Exit codes: 0 fine, 1 `check` found a problem, 2 a usage error or a file or session that cannot be used. */
export const EXIT = { ok: 0, problems: 1, unusable: 2 } as const

/** A failure to report in one line, with its exit code and a stable code for `--json`. */
export class CliError extends Error {
  /**
   * @param message - what went wrong and what to do
   * @param code - a stable code for scripts (`FILE_NOT_FOUND`, `UNKNOWN_SESSION`, …)
   * @param exitCode - the process's exit code
   */
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number = EXIT.unusable,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

/**
 * The error for a session the file does not hold.
 *
 * @param path - the ledger
 * @param sessionId - the session asked for
 * @returns the error
 */
export function unknownSession(path: string, sessionId: string): CliError {
  return new CliError(
    `no session "${sessionId}" in ${path}; list the sessions with: context-ledger sessions ${path}`,
    'UNKNOWN_SESSION',
  )
}

/**
 * What to tell a person for a library error met while opening or reading a file.
 *
 * @param error - the error
 * @param path - the file
 * @returns the error to report
 */
export function fromLedgerError(error: ContextLedgerError, path: string): CliError {
  switch (error.code) {
    case 'FILE_NOT_FOUND':
      return new CliError(
        `${path}: no such file; check the path (reading never creates a ledger)`,
        error.code,
      )
    case 'NOT_A_LEDGER':
      return new CliError(`${path} is not a context-ledger file (${firstClause(error.message)})`, error.code)
    case 'CORRUPT_DATABASE':
      return new CliError(
        `${path} is damaged: ${firstClause(error.message)}; restore it from a backup (context-ledger check tells more)`,
        error.code,
      )
    case 'SCHEMA_TOO_NEW':
      return new CliError(
        `${path} was written by a newer context-ledger; upgrade the context-ledger package to read it`,
        error.code,
      )
    case 'READ_ONLY':
      return new CliError(`${path}: ${error.message}`, error.code)
    case 'DATABASE_BUSY':
      return new CliError(`${path} is busy: another process holds its lock; try again`, error.code)
    default:
      return new CliError(`${path}: ${error.message}`, error.code)
  }
}

/** The library's message without the file name it starts with. */
function firstClause(message: string): string {
  return message.replace(/^\S+ (is |uses )?/, '').replace(/; it was not modified$/, '')
}
