/**
 * Tables for people (easy-table): columns two spaces apart, a header in bold over a rule, numbers aligned
 * right. Every column is as wide as its content until the table would pass the output's width; then the
 * last column (a message's text, as a rule) gives way first, then the widest others, none below 12
 * characters, and what no longer fits is elided with `…`.
 *
 * easy-table lays out a thousand rows in a few milliseconds; cli-table3, tried first, took a quarter of a
 * second for the thousand sessions of the scale benchmark (it checks every cell against every other for
 * spans), the whole budget of `context-ledger sessions`.
 */
import EasyTable from 'easy-table'
import type { Output } from './io.js'

/** One column: its header and how to align it. */
export interface Column {
  /** The header. */
  readonly head: string
  /** `right` for numbers. Default `left`. */
  readonly align?: 'left' | 'right'
}

const segmenter = new Intl.Segmenter()

/** The characters of a text as a person counts them (grapheme clusters). */
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment)
}

/** Length as shown: characters, without colour codes. */
function visible(text: string): number {
  // Printable ASCII (most cells): one character each, no need to segment.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
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
  if (visible(text) <= width) return text
  // eslint-disable-next-line no-control-regex
  const chars = graphemes(text.replace(/\u001b\[[0-9;]*m/g, ''))
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`
}

/**
 * Prints rows as a table fitted to the output's width.
 *
 * @param out - where
 * @param columns - the columns
 * @param rows - the cells, as one-line text
 */
export function printTable(
  out: Output,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): void {
  if (rows.length === 0) return
  const widths = columns.map((c, i) => Math.max(visible(c.head), ...rows.map((r) => visible(r[i] ?? ''))))
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
  const cut = new Set<number>()
  for (const i of order) {
    if (excess <= 0) break
    const floor = Math.max(12, visible(columns[i]?.head ?? ''))
    const by = Math.min(excess, (widths[i] ?? 0) - floor)
    if (by > 0) {
      widths[i] = (widths[i] ?? 0) - by
      excess -= by
      cut.add(i)
    }
  }
  const table = new EasyTable()
  table.separator = '  '
  for (const r of rows) {
    columns.forEach((c, i) => {
      const cell = r[i] ?? ''
      const text = cut.has(i) ? elide(cell, widths[i] ?? 12) : cell
      table.cell(c.head, text, c.align === 'right' ? EasyTable.padLeft : undefined)
    })
    table.newRow()
  }
  const [head = '', rule = '', ...body] = table.toString().trimEnd().split('\n')
  out.line(
    [out.color.bold(head.trimEnd()), out.color.dim(rule.trimEnd()), ...body.map((l) => l.trimEnd())].join(
      '\n',
    ),
  )
}
