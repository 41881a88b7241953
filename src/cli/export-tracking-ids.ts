/**
 * `import`'s check of the trackingIds an export gives its messages and its summaries, made as the lines
 * are read, before anything is written: a trackingId names one message of a session (and one summary),
 * so a second line with the same one is refused naming both lines — where the ledger's unique index
 * would otherwise refuse the write itself, with no line to name.
 */
import { CliError } from './errors.js'

/** Shortens an id for a message (an id may be long). */
function quoted(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id)
}

/** The trackingIds seen so far, each with its line. */
export class ExportTrackingIds {
  private readonly messages = new Map<string, number>()
  private readonly summaries = new Map<string, number>()

  /**
   * A message line's trackingId.
   *
   * @param trackingId - the line's trackingId
   * @param line - its line number
   * @throws CliError `INVALID_EXPORT` when an earlier message line has it
   */
  message(trackingId: string, line: number): void {
    ExportTrackingIds.see(this.messages, trackingId, line, 'message')
  }

  /**
   * A summary line's trackingId.
   *
   * @param trackingId - the line's trackingId
   * @param line - its line number
   * @throws CliError `INVALID_EXPORT` when an earlier summary line has it
   */
  summary(trackingId: string, line: number): void {
    ExportTrackingIds.see(this.summaries, trackingId, line, 'summary')
  }

  private static see(seen: Map<string, number>, id: string, line: number, what: string): void {
    const first = seen.get(id)
    if (first !== undefined)
      throw new CliError(
        `line ${line}: trackingId ${quoted(id)} is the trackingId of line ${first} too (a trackingId names one ${what} of a session); nothing was imported`,
        'INVALID_EXPORT',
      )
    seen.set(id, line)
  }
}
