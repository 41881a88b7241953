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
  // Too wide: the last column gives way first, then the widest others, none below 12 or its header.
  let excess = widths.reduce((a, w) => a + w, 0) + 2 * (columns.length - 1) - out.width
  const last = widths.length - 1
  const order = [
    last,
    ...widths
      .map((_, i) => i)
      .filter((i) => i !== last)
      .sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0)),
  ]
  for (const i of order) {
    if (excess <= 0) break
    const floor = Math.max(12, visible(columns[i]?.head ?? ''))
    const cut = Math.min(excess, (widths[i] ?? 0) - floor)
    if (cut > 0) {
      widths[i] = (widths[i] ?? 0) - cut
      excess -= cut
    }
  }
  const table = new Table({
    head: columns.map((c) => out.color.bold(c.head)),
    chars: COMPACT,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    colWidths: widths,
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
