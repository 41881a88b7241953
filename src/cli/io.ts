/**
 * Where the command line reads and writes: the process's streams, or a test's. Every command writes
 * through {@link Output}, which knows whether colour is wanted (a TTY, no `NO_COLOR`), how wide the
 * terminal is, and waits for a slow reader (backpressure) when it streams.
 */
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import pc from 'picocolors'
import { jsonVisible, visible } from './format.js'

/** A stream the command line writes to: a process stream, a file stream, or a test's collector. */
export interface OutStream {
  /** Writes a chunk; false when the reader is behind (wait for `'drain'`). */
  write(chunk: string): boolean
  /** Set on a terminal. */
  readonly isTTY?: boolean | undefined
  /** The terminal's width, on a terminal. */
  readonly columns?: number | undefined
  /** Node's event subscription, for `'drain'`. */
  once?(event: 'drain', listener: () => void): unknown
}

/** The streams and environment a run of the command line uses. */
export interface CliIo {
  /** Results: tables, JSON, exports. */
  readonly stdout: OutStream
  /** Errors, notes and progress. */
  readonly stderr: OutStream
  /** What `import` reads when no file is given. */
  readonly stdin: Readable
  /** The environment (`NO_COLOR`, `FORCE_COLOR`, `COLUMNS`, `CONTEXT_LEDGER_DEBUG`). */
  readonly env: Readonly<Record<string, string | undefined>>
}

/**
 * The process's own streams and environment.
 *
 * @returns them
 */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }
}

/** The colour functions used (no-ops when colour is off). */
export type Colors = ReturnType<typeof pc.createColors>

/**
 * Colour functions that show the control characters of what they colour ({@link visible}): what is
 * coloured is a value (a session id, a rule, a message), never a terminal sequence of its own.
 */
function escaping(colors: Colors): Colors {
  const out = { ...colors }
  for (const name of Object.keys(colors) as (keyof Colors)[]) {
    const f = colors[name]
    if (typeof f === 'function')
      (out as Record<keyof Colors, unknown>)[name] = (input: unknown) => f(visible(String(input)))
  }
  return out
}

/** Escape sequences the colour functions write: SGR (`ESC [ n m`), which only sets colours. */
// eslint-disable-next-line no-control-regex
const OWN_SEQUENCE = /\u001b\[\d+m/y

/**
 * What goes to a terminal: every control character shown ({@link visible}) but line feeds and the colour
 * codes of {@link escaping} colours — a net under the values each command shows visibly itself.
 */
function printable(text: string): string {
  let out = ''
  let from = 0
  for (let i = text.indexOf('\u001b'); i >= 0; i = text.indexOf('\u001b', i + 1)) {
    OWN_SEQUENCE.lastIndex = i
    if (!OWN_SEQUENCE.test(text)) continue
    out += lines(text.slice(from, i)) + text.slice(i, OWN_SEQUENCE.lastIndex)
    from = OWN_SEQUENCE.lastIndex
    i = from - 1
  }
  return out + lines(text.slice(from))
}

function lines(text: string): string {
  return text.split('\n').map(visible).join('\n')
}

/**
 * Whether to colour what goes to `stream`: only on a terminal, never with `NO_COLOR` set (any value but
 * empty) or `TERM=dumb`; `FORCE_COLOR` turns it on anywhere, and `FORCE_COLOR=0` (or `false`) off.
 *
 * @param stream - the stream
 * @param env - the environment
 * @returns true to colour
 */
export function wantsColor(stream: OutStream, env: CliIo['env']): boolean {
  const force = env.FORCE_COLOR
  if (force === '0' || force === 'false') return false
  if (force !== undefined && force !== '') return true
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.TERM === 'dumb') return false
  return stream.isTTY === true
}

/** What a command writes through: lines, JSON, colour and the width to fit. */
export class Output {
  /** Colours for stdout. */
  readonly color: Colors
  /** Colours for stderr. */
  readonly errColor: Colors
  /** The width tables and elided text fit in. */
  readonly width: number

  /**
   * @param io - the streams
   */
  constructor(readonly io: CliIo) {
    this.color = escaping(pc.createColors(wantsColor(io.stdout, io.env)))
    this.errColor = escaping(pc.createColors(wantsColor(io.stderr, io.env)))
    const fromEnv = Number(io.env.COLUMNS)
    this.width =
      io.stdout.isTTY === true && io.stdout.columns !== undefined && io.stdout.columns > 0
        ? io.stdout.columns
        : Number.isSafeInteger(fromEnv) && fromEnv > 0
          ? fromEnv
          : 120
  }

  /**
   * Writes one line to stdout (several, when it holds line feeds), every other control character shown
   * visibly but the colour codes of {@link color}.
   *
   * @param text - the line, without its newline
   */
  line(text = ''): void {
    this.io.stdout.write(`${printable(text)}\n`)
  }

  /**
   * Writes a value as JSON (two-space indented) to stdout ({@link jsonFor}: on a terminal, with no
   * control character as it is).
   *
   * @param value - the value
   */
  json(value: unknown): void {
    this.io.stdout.write(jsonFor(this.io.stdout, `${JSON.stringify(value, null, 2)}\n`))
  }

  /**
   * Writes one line to stderr, as {@link line} does to stdout.
   *
   * @param text - the line, without its newline
   */
  note(text: string): void {
    this.io.stderr.write(`${printable(text)}\n`)
  }
}

/**
 * Writes to a stream and waits while its reader is behind, so that streaming a big result keeps memory
 * flat.
 *
 * @param stream - where to write
 * @param chunk - what
 */
export async function writeWaiting(stream: OutStream, chunk: string): Promise<void> {
  if (stream.write(chunk) || stream.once === undefined) return
  await once(stream as unknown as NodeJS.EventEmitter, 'drain')
}

/**
 * JSON text as it goes to `stream`: on a terminal, every character a terminal acts on written as its
 * JSON escape ({@link jsonVisible}: the same JSON value, every string exact); elsewhere (a file, a pipe)
 * as it is, byte for byte. `export`'s lines and every `--json` document go through it.
 *
 * @param stream - where it goes
 * @param json - what `JSON.stringify` wrote
 * @returns the text to write
 */
export function jsonFor(stream: OutStream, json: string): string {
  return stream.isTTY === true ? jsonVisible(json) : json
}
