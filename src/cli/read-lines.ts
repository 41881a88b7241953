/**
 * The lines of what `import` reads (a file, stdin, a pipe, a device), with a bound: a line is at most
 * {@link MAX_LINE_BYTES} long, so an input that never ends a line (`/dev/zero`, a binary file) is
 * refused with its line number once past it, instead of growing until memory runs out. A failure to
 * read (a directory, no permission, an I/O error) is one error naming the input and why.
 */
import { constants } from 'node:buffer'
import { createReadStream, existsSync, statSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { CliError } from './errors.js'
import { count } from './format.js'

/**
 * The longest line an export holds: the longest string Node.js can make (about 512 MiB). `export`
 * writes each line with `JSON.stringify`, which cannot make a longer one, and the store cannot hold a
 * message whose JSON is longer.
 */
export const MAX_LINE_BYTES: number = constants.MAX_STRING_LENGTH

/** Why an input could not be read, in words. */
const WHY: Readonly<Record<string, string>> = {
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'no such file',
  EIO: 'an input/output error',
}

/**
 * The error for an input that cannot be read.
 *
 * @param name - the input as the user named it (`stdin`, a path)
 * @param error - what reading it threw
 * @returns the error to report
 */
export function unreadable(name: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const why =
    (code === undefined ? undefined : WHY[code]) ?? (error instanceof Error ? error.message : String(error))
  return new CliError(`${name} cannot be read: ${why}; nothing was imported`, 'USAGE')
}

/**
 * The lines of the export `import` reads: from `input` (a file, a device, a named pipe), else from
 * stdin unless it is a terminal.
 *
 * @param stdin - the process's stdin
 * @param options - `input`, the path given; `maxLineBytes` (default {@link MAX_LINE_BYTES})
 * @returns the lines ({@link readLines})
 * @throws CliError `FILE_NOT_FOUND` for a missing input, `USAGE` for a directory or a terminal's stdin
 */
export function exportLines(
  stdin: Readable,
  options: { input?: string; maxLineBytes?: number },
): AsyncGenerator<string> {
  const bound = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }
  const path = options.input
  if (path === undefined) {
    if ((stdin as { isTTY?: boolean }).isTTY === true)
      throw new CliError(
        'import reads an export from stdin: redirect one (context-ledger import other.db < s.jsonl) or pass --input <file>',
        'USAGE',
      )
    return readLines(stdin, { name: 'stdin', ...bound })
  }
  if (!existsSync(path)) throw new CliError(`${path}: no such file to import`, 'FILE_NOT_FOUND')
  let directory = false
  try {
    directory = statSync(path).isDirectory()
  } catch (error) {
    throw unreadable(path, error)
  }
  if (directory) throw unreadable(path, Object.assign(new Error('EISDIR'), { code: 'EISDIR' }))
  return readLines(createReadStream(path), { name: path, ...bound })
}

/**
 * Reads `input` line by line: a line ends at a line feed (a carriage return before it is dropped); the
 * last line needs none. Bytes are decoded as UTF-8.
 *
 * @param input - the stream
 * @param options - `name` for errors; `maxLineBytes` (default {@link MAX_LINE_BYTES})
 * @yields each line, without its line break
 * @throws CliError `INVALID_EXPORT` for a line longer than the bound, `USAGE` when the input cannot be read
 */
export async function* readLines(
  input: Readable,
  options: { name: string; maxLineBytes?: number },
): AsyncGenerator<string> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES
  let parts: Buffer[] = []
  let size = 0
  let n = 0
  const line = (): string => {
    n++
    const text = Buffer.concat(parts, size).toString('utf8')
    parts = []
    size = 0
    return text.endsWith('\r') ? text.slice(0, -1) : text
  }
  const tooLong = (): CliError =>
    new CliError(
      `line ${n + 1}: longer than ${count(max)} bytes, the longest line an export holds (is ${options.name} an export?); nothing was imported`,
      'INVALID_EXPORT',
    )
  try {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10)) {
        if (size + at > max) throw tooLong()
        parts.push(bytes.subarray(0, at))
        size += at
        yield line()
        bytes = bytes.subarray(at + 1)
      }
      if (size + bytes.length > max) throw tooLong()
      if (bytes.length > 0) {
        parts.push(bytes)
        size += bytes.length
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error
    throw unreadable(options.name, error)
  } finally {
    input.destroy()
  }
  if (size > 0) yield line()
}
