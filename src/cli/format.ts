/**
 * Formatting values for people: counts, byte sizes, times (UTC), one message's content as text, and
 * {@link visible}, which every text from a ledger goes through before it reaches a terminal.
 */
import type { ContentBlockData, StoredMessageData, ToolResultContentData } from '../messages/types.js'

/**
 * Every character a terminal acts on instead of showing, or that reorders the text around it — the one
 * list every output to a terminal escapes: C0 controls but the line feed and tab ({@link visible} takes
 * those too), DEL, C1 controls (U+0080–U+009F, CSI U+009B among them), the bidirectional marks (U+200E,
 * U+200F, U+061C), embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069), and the line
 * and paragraph separators (U+2028, U+2029).
 */
const UNSAFE =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069'
const CONTROLS = new RegExp(`[${UNSAFE}]`, 'g')
const CONTROLS_AND_BREAKS = new RegExp(`[\\t\\n${UNSAFE}]`, 'g')

/** A character as a JSON (and JavaScript) escape: `\u009b`. */
function escaped(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/** A control character as a person sees it: its Control Pictures glyph (`␛`, `␊`, `␡`), else `\uXXXX`. */
function picture(c: string): string {
  const code = c.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return escaped(c)
}

/**
 * Text from a ledger (a message, a session id, an actor, a model name …) made safe to print on one line:
 * every control character — ESC and BEL, which start and end terminal sequences, carriage returns, line
 * breaks, tabs, C1 controls, bidirectional overrides — is shown as a picture (`␛`, `␇`, `␍`, `␊`, `␉`)
 * or an escape (`\u009b`, `\u202e`) instead of acting on the terminal. `--json` output never goes
 * through it.
 *
 * @param text - the text
 * @returns the text with every control character visible, on one line
 */
export function visible(text: string): string {
  return text.replace(CONTROLS_AND_BREAKS, picture)
}

/**
 * The same for text printed over several lines (`--full`): line feeds (a CRLF is one) and tabs stay.
 *
 * @param text - the text
 * @returns the text with every other control character visible
 */
export function visibleLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, picture)
}

/**
 * JSON text made safe for a terminal and still the same JSON: every character of the list {@link visible}
 * shows that `JSON.stringify` writes as it is (DEL, C1 controls, bidirectional controls, the line and
 * paragraph separators — it escapes C0 controls itself) becomes its JSON escape (`\u009b`), which reads
 * back as the same string. Line feeds, which are JSON's own layout outside strings, stay.
 *
 * @param json - text `JSON.stringify` wrote (indented or not)
 * @returns the same JSON value, with no character a terminal acts on
 */
export function jsonVisible(json: string): string {
  return json.replace(CONTROLS, escaped)
}

/**
 * A word as a POSIX shell reads it back: as it is when it holds only characters no shell treats
 * specially, else in single quotes (so a command the output suggests can be pasted as it is).
 *
 * @param word - e.g. a file name or a session id
 * @returns it, quoted when needed
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

/**
 * A count with thousands separators.
 *
 * @param n - the count
 * @returns e.g. `1,204`
 */
export function count(n: number): string {
  return n.toLocaleString('en-US')
}

/**
 * A count with its noun, singular for one: `1 session`, `2 sessions`.
 *
 * @param n - the count
 * @param one - the noun for one
 * @param many - the noun for any other count (`one` + 's' by default)
 * @returns the count in the en-US style, a space, the noun
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`
}

/**
 * A byte size.
 *
 * @param bytes - the size
 * @returns e.g. `744.2 MiB`
 */
export function bytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = bytes / 1024
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${v.toFixed(1)} ${units[u] ?? 'TiB'}`
}

/**
 * A time, in UTC, to the second.
 *
 * @param at - the time
 * @returns e.g. `2026-01-31 09:12:45`, or `—` when unknown
 */
export function time(at: Date | number | undefined): string {
  if (at === undefined) return '—'
  const d = typeof at === 'number' ? new Date(at) : at
  return Number.isNaN(d.getTime()) ? '—' : d.toISOString().slice(0, 19).replace('T', ' ')
}

/**
 * A time as JSON carries it: ISO 8601 in UTC.
 *
 * @param at - the time
 * @returns the ISO string, or null when unknown
 */
export function iso(at: Date | number | undefined | null): string | null {
  if (at === undefined || at === null) return null
  const d = typeof at === 'number' ? new Date(at) : at
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

function sizeOf(base64: string): string {
  return bytes(Math.floor((base64.length * 3) / 4))
}

function compactJson(value: unknown): string {
  const text = JSON.stringify(value)
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

function media(kind: string, m: { format: string; source: { bytes: string } | object }): string {
  const size = 'bytes' in m.source && typeof m.source.bytes === 'string' ? `, ${sizeOf(m.source.bytes)}` : ''
  return `[${kind} ${m.format}${size}]`
}

function resultItem(item: ToolResultContentData): string {
  if ('text' in item) return item.text
  if ('json' in item) return compactJson(item.json)
  if ('image' in item) return media('image', item.image)
  if ('video' in item) return media('video', item.video)
  return `[document ${item.document.name}]`
}

function block(b: ContentBlockData): string {
  if ('text' in b) return b.text
  if ('toolUse' in b) return `→ ${b.toolUse.name}(${compactJson(b.toolUse.input)})`
  if ('toolResult' in b) {
    const status = b.toolResult.status === 'error' ? ' [error]' : ''
    return `← ${b.toolResult.content.map(resultItem).join(' ')}${status}`.trimEnd()
  }
  if ('reasoning' in b)
    return b.reasoning.text === undefined ? '(reasoning, redacted)' : `(reasoning) ${b.reasoning.text}`
  if ('cachePoint' in b) return ''
  if ('guardContent' in b) return b.guardContent.text?.text ?? '[guarded image]'
  if ('image' in b) return media('image', b.image)
  if ('video' in b) return media('video', b.video)
  if ('audio' in b) return media('audio', b.audio)
  if ('document' in b) return `[document ${b.document.name} (${b.document.format})]`
  if ('citations' in b) return b.citations.content.map((c) => c.text).join(' ')
  return compactJson(b)
}

/**
 * A message's content as a person reads it: its text, tool calls as `→ name(input)`, tool results as
 * `← output`, media as `[image png, 12.0 KiB]`; blocks separated by a blank line; control characters
 * visible ({@link visibleLines}).
 *
 * @param message - the message
 * @returns the text (several lines when the message has them)
 */
export function messageText(message: Pick<StoredMessageData, 'content'>): string {
  return visibleLines(rawText(message))
}

function rawText(message: Pick<StoredMessageData, 'content'>): string {
  return message.content
    .map(block)
    .filter((t) => t !== '')
    .join('\n\n')
}

/**
 * The same on one line: runs of whitespace (newlines included) become one space.
 *
 * @param message - the message
 * @returns one line
 */
export function messageLine(message: Pick<StoredMessageData, 'content'>): string {
  return visible(plainLine(message))
}

/**
 * A message's text on one line as it is stored, control characters and all: what `search` matches and
 * `--json` carries. Print it through {@link visible}.
 *
 * @param message - the message
 * @returns one line
 */
export function plainLine(message: Pick<StoredMessageData, 'content'>): string {
  return rawText(message).replace(/\s+/g, ' ').trim()
}
