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
   * message, a block kind the converter does not know): `'error'` (default) throws a
   * `ContextLedgerError` with code `INVALID_MESSAGE` and the block's `path`; `'placeholder'` sends a
   * short text in its place (see {@link unsupportedPlaceholder}), so the model knows something was there.
   */
  unsupported?: 'error' | 'placeholder' | undefined
}

/**
 * Checks the converter options, which JavaScript callers may pass unchecked.
 *
 * @param options - the options
 * @returns the options
 * @throws ContextLedgerError `INVALID_OPTIONS` for an `unsupported` value other than `'error'` or `'placeholder'`
 */
export function checkConvertOptions(options: ConvertOptions): ConvertOptions {
  const mode: unknown = options.unsupported
  if (mode !== undefined && mode !== 'error' && mode !== 'placeholder')
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `unsupported must be 'error' or 'placeholder', got ${typeof mode === 'string' ? JSON.stringify(mode) : typeof mode}`,
      { path: 'unsupported' },
    )
  return options
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
