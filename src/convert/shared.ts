/**
 * What the provider converters share: the options, the handling of blocks a provider cannot take, image
 * media types, data URLs and document text. The converters are pure functions over the stored message
 * form (`MessageData`, as `window()` returns it; other input can be checked first with
 * `validateMessage`), with no provider SDK behind them.
 */
import { ContextLedgerError } from '../errors.js'
import { formatPath } from '../messages/json-snapshot.js'
import type { DocumentBlockData } from '../messages/types.js'

/** Options of the provider converters. */
export interface ConvertOptions {
  /**
   * What to do with a block the provider cannot take (a video, an S3 location, an image in an assistant
   * message): `'error'` (default) throws a `ContextLedgerError` with code `INVALID_MESSAGE` and the
   * block's `path`; `'placeholder'` sends a short text in its place (see {@link unsupportedPlaceholder}),
   * so the model knows something was there.
   */
  unsupported?: 'error' | 'placeholder' | undefined
  /**
   * What to do when the window ends with tool calls still waiting for their results (the process stopped
   * between the model's call and its result; `window()` keeps such a call in flight): `'error'` (default)
   * throws `INVALID_MESSAGE` naming the first waiting toolUse, since every provider refuses a call without
   * its result; `'drop'` leaves out the unfinished turn — the assistant messages after the window's last
   * user message, their text and reasoning too — so the request asks the model again where it was asked
   * before.
   */
  pendingToolUse?: 'error' | 'drop' | undefined
}

/** The option names and the values each takes. */
const OPTION_VALUES: Readonly<Record<keyof ConvertOptions, readonly string[]>> = {
  unsupported: ['error', 'placeholder'],
  pendingToolUse: ['error', 'drop'],
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : typeof value
}

/**
 * Checks the converter options, which JavaScript callers may pass unchecked.
 *
 * @param options - `undefined` or an object with the options
 * @returns the options (an empty object for `undefined`)
 * @throws ContextLedgerError `INVALID_OPTIONS` for options that are not an object (path `options`), an
 *   unknown option, or a value the option does not take (path: the option's name)
 */
export function checkConvertOptions(options: unknown): ConvertOptions {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Expected the converter options as an object, got ${describeValue(options)}`,
      { path: 'options' },
    )
  const out: ConvertOptions = {}
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(OPTION_VALUES, key))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `Unknown converter option ${describeValue(key)} (known: ${Object.keys(OPTION_VALUES).join(', ')})`,
        { path: key },
      )
    const name = key as keyof ConvertOptions
    const value: unknown = (options as Record<string, unknown>)[name]
    if (value === undefined) continue
    const allowed = OPTION_VALUES[name]
    if (typeof value !== 'string' || !allowed.includes(value))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `${name} must be ${allowed.map((v) => `'${v}'`).join(' or ')}, got ${describeValue(value)}`,
        { path: name },
      )
    Object.assign(out, { [name]: value })
  }
  return out
}

/** Where a block is, as keys and indices from the converted array: `[3, 'content', 1, 'video']`. */
export type BlockPath = readonly (string | number)[]

/**
 * The text sent in place of a block a provider cannot take, with `unsupported: 'placeholder'`.
 *
 * @param kind - the block kind, e.g. `video`
 * @param provider - the provider's API name
 * @returns e.g. `[video omitted: not supported by Anthropic Messages]`
 */
export function unsupportedPlaceholder(kind: string, provider: string): string {
  return `[${kind} omitted: not supported by ${provider}]`
}

/** The text a tool result with no content is sent as, where the provider needs non-empty text. */
export const EMPTY_TOOL_RESULT_TEXT = '(no output)'

/** The prefix of an OpenAI tool output whose status is `error` (OpenAI has no error flag). */
export const TOOL_ERROR_PREFIX = '[ERROR] '

/**
 * Handles a block the provider cannot take, by the caller's choice.
 *
 * @param options - the converter options
 * @param provider - the provider's API name, for the message and the placeholder
 * @param path - where the block is
 * @param kind - the block kind
 * @param why - what makes it unsupported
 * @returns the placeholder text
 * @throws ContextLedgerError `INVALID_MESSAGE` unless `options.unsupported` is `'placeholder'`
 */
export function unsupported(
  options: ConvertOptions,
  provider: string,
  path: BlockPath,
  kind: string,
  why: string,
): string {
  if (options.unsupported === 'placeholder') return unsupportedPlaceholder(kind, provider)
  const where = formatPath(path)
  throw new ContextLedgerError(
    'INVALID_MESSAGE',
    `${provider} cannot take the ${kind} block at ${where}: ${why}. Pass { unsupported: 'placeholder' } to send a placeholder text instead.`,
    { path: where },
  )
}

/**
 * The single key that names a block's kind.
 *
 * @param block - a content block or tool-result item
 * @returns its kind, e.g. `text`, `toolUse`; `unknown` for something that is not an object
 */
export function blockKind(block: object): string {
  return Object.keys(block)[0] ?? 'unknown'
}

/** Media type of an image format the providers take. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/** The image formats every converter sends, and their media types. */
const IMAGE_MEDIA_TYPES: ReadonlyMap<string, ImageMediaType> = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
])

/**
 * The media type of an image format the providers take.
 *
 * @param format - e.g. `png`, `JPG`
 * @returns the media type, or undefined for another format
 */
export function imageMediaType(format: string): ImageMediaType | undefined {
  return IMAGE_MEDIA_TYPES.get(format.toLowerCase())
}

/** Document formats whose bytes are text, sent as text where a provider takes only PDF files. */
const TEXT_FORMATS = new Set(['txt', 'md', 'markdown', 'csv', 'json', 'xml', 'html', 'yml', 'yaml'])

/**
 * Whether a document format holds text.
 *
 * @param format - e.g. `txt`
 * @returns true for plain-text formats (txt, md, csv, json, xml, html, yaml)
 */
function isTextFormat(format: string): boolean {
  return TEXT_FORMATS.has(format.toLowerCase())
}

/**
 * Decodes base64 bytes as UTF-8 text.
 *
 * @param bytes - base64, as the stored form holds bytes
 * @returns the text
 */
export function decodeText(bytes: string): string {
  return Buffer.from(bytes, 'base64').toString('utf8')
}

/**
 * A `data:` URL for base64 bytes.
 *
 * @param type - the media type
 * @param bytes - base64
 * @returns `data:<type>;base64,<bytes>`
 */
export function dataUrl(type: string, bytes: string): string {
  return `data:${type};base64,${bytes}`
}

/**
 * The text of a document whose source is text: inline text, text blocks, or bytes of a text format.
 *
 * @param document - the document block
 * @returns the text, or undefined for binary bytes or an S3 location
 */
export function documentText(document: DocumentBlockData): string | undefined {
  const source = document.source
  if ('text' in source) return source.text
  if ('content' in source) return source.content.map((c) => c.text).join('\n')
  if ('bytes' in source && isTextFormat(document.format)) return decodeText(source.bytes)
  return undefined
}
