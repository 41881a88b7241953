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
import { visible } from './format.js'
import type { Output } from './io.js'

/** One column: its header and how to align it. */
export interface Column {
  /** The header. */
  readonly head: string
  /** `right` for numbers. Default `left`. */
  readonly align?: 'left' | 'right'
  /** Colours a cell once it is laid out (a cell is plain text: a colour code in one would be shown). */
  readonly style?: (cell: string) => string
}

const segmenter = new Intl.Segmenter()

/** The characters of a text as a person counts them (grapheme clusters). */
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment)
}

/** Length as shown: characters, without colour codes. */
function widthOf(text: string): number {
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
  if (widthOf(text) <= width) return text
  // eslint-disable-next-line no-control-regex
  const chars = graphemes(text.replace(/\u001b\[[0-9;]*m/g, ''))
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`
}

/**
 * Prints rows as a table fitted to the output's width. Every cell is shown with its control characters
 * visible (`visible` of `format.ts`), so a value from the ledger never acts on the terminal or breaks
 * its row.
 *
 * @param out - where
 * @param columns - the columns
 * @param cells - the cells, as text
 */
export function printTable(
  out: Output,
  columns: readonly Column[],
  cells: readonly (readonly string[])[],
): void {
  if (cells.length === 0) return
  const rows = cells.map((r) => r.map(visible))
  const widths = columns.map((c, i) => Math.max(widthOf(c.head), ...rows.map((r) => widthOf(r[i] ?? ''))))
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
    const floor = Math.max(12, widthOf(columns[i]?.head ?? ''))
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
      // easy-table measures cells without their colour codes.
      table.cell(
        c.head,
        c.style === undefined ? text : c.style(text),
        c.align === 'right' ? EasyTable.padLeft : undefined,
      )
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
