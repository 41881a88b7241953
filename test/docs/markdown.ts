/**
 * Just enough Markdown reading for the doc tests: headings with their GitHub anchors, relative links and
 * fenced code blocks, each outside fenced code. No Markdown library: the docs use a small, regular subset.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Reads a file of the repository.
 *
 * @param path - relative to the repository root
 * @returns its text
 */
export function readRepoFile(path: string): string {
  return readFileSync(new URL(path, `file://${ROOT}`), 'utf8')
}

/** A line of Markdown and whether it lies inside a fenced code block (fence lines count as inside). */
interface Line {
  readonly text: string
  readonly inFence: boolean
}

function lines(markdown: string): Line[] {
  let fence: string | undefined
  return markdown.split('\n').map((text) => {
    const marker = /^\s*(```|~~~)/.exec(text)?.[1]
    if (fence === undefined && marker !== undefined) {
      fence = marker
      return { text, inFence: true }
    }
    if (fence !== undefined) {
      if (marker === fence) fence = undefined
      return { text, inFence: true }
    }
    return { text, inFence: false }
  })
}

/** A heading: its level, its text as written, and the anchor GitHub gives it. */
export interface Heading {
  readonly level: number
  readonly text: string
  readonly anchor: string
}

/**
 * The anchor GitHub derives from a heading's text: lower case, punctuation other than `-` and `_` dropped
 * (inline code marks included), each space a hyphen.
 *
 * @param text - the heading text as written
 * @returns the anchor, without `#` and without a duplicate suffix
 */
export function githubSlug(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/**
 * The headings of a document, outside fenced code, with GitHub's anchors (a repeated anchor gets `-1`,
 * `-2` …).
 *
 * @param markdown - the document
 * @returns its headings in order
 */
export function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>()
  const out: Heading[] = []
  for (const line of lines(markdown)) {
    const match = line.inFence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line.text)
    if (match === null) continue
    const text = match[2] ?? ''
    const base = githubSlug(text)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    out.push({ level: (match[1] ?? '').length, text, anchor: count === 0 ? base : `${base}-${count}` })
  }
  return out
}

/**
 * The link targets of a document: `[text](target)` outside fenced and inline code.
 *
 * @param markdown - the document
 * @returns each target as written, with the line it is on (1-based)
 */
export function links(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = []
  // Only `](target)` is matched, so a link whose text wraps onto the next line is still found.
  lines(markdown).forEach((line, i) => {
    if (line.inFence) return
    const prose = line.text.replace(/`[^`]*`/g, '``')
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      out.push({ target: m[1] ?? '', line: i + 1 })
  })
  return out
}

/**
 * The fenced code blocks of one language.
 *
 * @param markdown - the document
 * @param language - the info string, e.g. `sql`
 * @returns each block's text, in order
 */
export function codeBlocks(markdown: string, language: string): string[] {
  const out: string[] = []
  let current: string[] | undefined
  for (const text of markdown.split('\n')) {
    if (current === undefined) {
      if (new RegExp(`^\\s*\`\`\`${language}\\s*$`).test(text)) current = []
    } else if (/^\s*```\s*$/.test(text)) {
      out.push(current.join('\n'))
      current = undefined
    } else current.push(text)
  }
  return out
}
