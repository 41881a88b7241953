/**
 * Every relative link in the README and docs/ points to a file that exists, and every `#anchor` to a
 * heading of its target, so a renamed heading or a moved doc breaks the build instead of a reader's click.
 */
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { headings, links, readRepoFile, ROOT } from './markdown.js'

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/**
 * Docs written on other branches of the same change, linked from here before they land. Each is checked
 * like any other file as soon as it exists; until then only links to it are let through.
 */
const LANDING_ELSEWHERE = new Set(['docs/install.md', 'docs/converters.md'])

function brokenLinks(doc: string): string[] {
  const problems: string[] = []
  for (const { target, line } of links(readRepoFile(doc))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
    const [pathPart = '', anchor] = target.split('#', 2)
    const file = pathPart === '' ? doc : normalize(join(dirname(doc), decodeURIComponent(pathPart)))
    const where = `${doc}:${line} → ${target}`
    if (relative(ROOT, join(ROOT, file)).startsWith('..')) {
      problems.push(`${where}: points outside the repository`)
      continue
    }
    if (!existsSync(join(ROOT, file))) {
      if (!LANDING_ELSEWHERE.has(file)) problems.push(`${where}: ${file} does not exist`)
      continue
    }
    if (anchor === undefined || anchor === '') continue
    if (!file.endsWith('.md')) {
      problems.push(`${where}: an anchor into a file that is not Markdown`)
      continue
    }
    const anchors = headings(readRepoFile(file)).map((h) => h.anchor)
    if (!anchors.includes(anchor)) problems.push(`${where}: ${file} has no heading #${anchor}`)
  }
  return problems
}

describe('doc links', () => {
  it.each(DOCS)('%s: every relative link and anchor resolves', (doc) => {
    expect(brokenLinks(doc)).toEqual([])
  })

  it('finds the docs it checks', () => {
    expect(DOCS).toEqual(
      expect.arrayContaining(['README.md', 'docs/api.md', 'docs/design.md', 'docs/schema.md']),
    )
  })
})
