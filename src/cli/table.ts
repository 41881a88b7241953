/**
 * Tables for people (cli-table3): a header row in bold, no rules between rows, every column as wide as
 * its content but the last, which takes what is left of the terminal's width and elides the rest with
 * `…` (cli-table3 measures and truncates, colour codes and wide characters included).
 */
import Table from 'cli-table3'
import type { Output } from './io.js'

/** One column: its header and how to align it. */
export interface Column {
  /** The header. */
  readonly head: string
  /** `right` for numbers. Default `left`. */
  readonly align?: 'left' | 'right'
}

const COMPACT = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
}

/**
 * Prints rows as a table fitted to the output's width; the last column is elided to fit.
 *
 * @param out - where
 * @param columns - the columns
 * @param rows - the cells, as text
 */
export function printTable(
  out: Output,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): void {
  const widths = columns.map((c, i) =>
    Math.max(visible(c.head), ...rows.map((r) => Math.max(...(r[i] ?? '').split('\n').map(visible)))),
  )
  const gaps = 2 * (columns.length - 1)
  const fixed = widths.slice(0, -1).reduce((a, w) => a + w, 0)
  const last = Math.max(12, Math.min(widths.at(-1) ?? 0, out.width - fixed - gaps))
  const table = new Table({
    head: columns.map((c) => out.color.bold(c.head)),
    chars: COMPACT,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    colWidths: [...widths.slice(0, -1), last],
    colAligns: columns.map((c) => c.align ?? 'left'),
    wordWrap: false,
    truncate: '…',
  })
  for (const r of rows) table.push([...r])
  out.line(
    table
      .toString()
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n'),
  )
}

const segmenter = new Intl.Segmenter()

/** The characters of a text as a person counts them (grapheme clusters). */
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment)
}

/** Length as shown: characters, without colour codes. */
function visible(text: string): number {
  // eslint-disable-next-line no-control-regex
  return graphemes(text.replace(/\u001b\[[0-9;]*m/g, '')).length
}

/**
 * Cuts text to `width` characters, ending with `…` when it was longer.
 *
 * @param text - one line
 * @param width - at least 1
 * @returns the text, elided
 */
export function elide(text: string, width: number): string {
  const chars = graphemes(text)
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`
}
