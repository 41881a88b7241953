/**
 * `examples/openai-agents-branches.ts` runs as documented, in a process of its own, and the file it
 * leaves says what it printed: the fork goes its own way while the session is unchanged, the popped
 * answer is an abandoned branch that still reads as the session did and that search finds, the replaced
 * answer another, and the tree lists all four sessions with their fork points and reasons.
 */
import { describe, expect, it } from 'vitest'
import { LedgerSession } from '../../src/adapters/openai-agents/index.js'
import { openContextStore } from '../../src/index.js'
import { tsx } from '../helpers/demo-run.js'
import { useTempDir } from '../helpers/temp-store.js'

const dir = useTempDir('context-ledger-oa-branches-example-')

describe('examples/openai-agents-branches.ts', () => {
  it('prints the story, and the file holds the tree it printed', async () => {
    const file = dir.file('support.db')
    const done = tsx('examples/openai-agents-branches.ts', '--db', file)
    expect(done.stderr).not.toMatch(/Error/)
    expect(done.status).toBe(0)
    const out = done.stdout
    expect(out).toContain('the branch ends with "Order A-1005 is in transit."')
    expect(out).toContain('the session still ends with "Order A-1003 is held at customs."')
    expect(out).toContain('popItem() took back "Order A-1003 is held at customs."')
    expect(out).toContain('which still ends with "Order A-1003 is held at customs."')
    expect(out).toContain('search("A-1003 is") finds it in: "support-dana~1"')
    expect(out).toContain('→ "Order A-1003 is held at customs; it clears on Monday."')
    // --db keeps the file, so the CLI hint names it (without --db it would name a removed temp file).
    expect(out).toContain(`npx context-ledger branches ${file} support-dana`)

    const store = openContextStore(file)
    try {
      const tree = store.branches('support-dana')
      expect(tree.map((b) => [b.sessionId, b.kind, b.parentId, b.reason])).toStrictEqual([
        ['support-dana', 'root', null, null],
        ['support-dana-alt', 'fork', 'support-dana', 'ask about A-1005 instead'],
        ['support-dana~1', 'abandoned', 'support-dana', 'popItem'],
        ['support-dana~2', 'abandoned', 'support-dana', 'replace_suffix (operation correct-a-1003)'],
      ])
      for (const b of tree) expect(out).toContain(`${b.sessionId} (${b.kind}`)
      const session = new LedgerSession({ store, sessionId: 'support-dana' })
      const last = JSON.stringify((await session.getItems()).at(-1))
      expect(last).toContain('it clears on Monday')
    } finally {
      store.close()
    }
  })
})
