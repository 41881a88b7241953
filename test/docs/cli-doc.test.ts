/**
 * docs/cli.md quotes the CLI's own words where a reader compares them with a terminal: the refusal of a
 * file from an older schema must be the one the CLI prints now, with this version's schema number (it
 * said "reads version 8" after the schema moved to 9).
 */
import { describe, expect, it } from 'vitest'
import { currentSchemaVersion, olderSchemaMessage } from '../../src/cli/open-ledger.js'
import { readRepoFile } from './markdown.js'

describe('docs/cli.md', () => {
  it('quotes the refusal of an older file as the CLI prints it', () => {
    const doc = readRepoFile('docs/cli.md')
    const quoted = /^context-ledger: (old\.db uses ledger schema version 1;.*)$/m.exec(doc)?.[1]
    expect(quoted).toBe(olderSchemaMessage('old.db', 1, currentSchemaVersion()))
  })

  it('does not say search or evictions work on a file from before the index', () => {
    const doc = readRepoFile('docs/cli.md')
    expect(doc).not.toMatch(/only method on a file from before the index/)
    expect(doc).toMatch(/`search` needs a\s+file of the current schema/)
  })
})
