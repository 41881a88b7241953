/**
 * Progress of long work (export, import, check) on stderr: one line rewritten in place, at most five
 * times a second, and only on a terminal (`--no-progress` turns it off), so that scripts and logs see
 * nothing of it.
 */
import { count, visible } from './format.js'
import type { CliIo } from './io.js'

/** A progress line. */
export class Progress {
  private readonly label: string
  private last = 0
  private shown = 0
  private readonly enabled: boolean

  /**
   * @param io - the streams (progress goes to stderr when it is a terminal)
   * @param wanted - false for `--no-progress`
   * @param label - what is counted, e.g. `exporting support-42`
   * @param total - the count expected, when known
   */
  constructor(
    private readonly io: CliIo,
    wanted: boolean,
    label: string,
    private readonly total?: number,
  ) {
    this.enabled = wanted && io.stderr.isTTY === true
    this.label = visible(label)
  }

  /**
   * Reports how far the work is.
   *
   * @param done - units done so far
   * @param unit - what they are, e.g. `messages`
   */
  update(done: number, unit = 'messages'): void {
    if (!this.enabled) return
    const now = performance.now()
    if (now - this.last < 200) return
    this.last = now
    const of =
      this.total === undefined || this.total === 0
        ? ''
        : ` of ${count(this.total)} (${Math.floor((100 * done) / this.total)}%)`
    const line = `${this.label}: ${count(done)}${of} ${unit}`
    this.io.stderr.write(`\r${line.padEnd(this.shown)}`)
    this.shown = line.length
  }

  /** Clears the line. */
  done(): void {
    if (this.enabled && this.shown > 0) this.io.stderr.write(`\r${' '.repeat(this.shown)}\r`)
    this.shown = 0
  }
}
