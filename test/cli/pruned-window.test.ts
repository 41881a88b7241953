/**
 * Retention skips what it pruned, so a pruned message whose window form holds text keeps that text for
 * good. Retention leaves no window form (but a late result's), so `check` reports one and `import`
 * refuses it (a forged export got past both, the second adversarial pass).
 */
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const dir = useTempDir('context-ledger-pruned-window-')

describe('a pruned message with a window form', () => {
  it('is reported by check and refused by import', async () => {
    const file = dir.file('pruned.db')
    const store = openContextStore(file)
    const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: 2 })
    for (let i = 0; i < 4; i++)
      m.append([
        { role: 'user', content: [{ text: `question ${i}` }] },
        { role: 'assistant', content: [{ text: `answer ${i}` }] },
      ])
    m.applyWindow()
    expect(m.prune({ before: Date.now() + 1000, keepPinned: true }).pruned).toBeGreaterThan(0)
    store.close()
    expect((await cli(['check', file])).code).toBe(0)
    const exported = await cli(['export', file, 's'])
    expect(exported.code).toBe(0)

    // The window form of pruned seq 0: its body's metadata, other text.
    const db = new Database(file)
    const row = db.prepare<[], { body: string }>('SELECT body FROM messages WHERE seq = 0').get()
    const body = JSON.parse(row?.body ?? '{}') as { metadata: unknown; role: string; trackingId: string }
    const form = JSON.stringify({ ...body, content: [{ text: 'window secret zebra' }] })
    db.prepare('UPDATE messages SET window_body = ? WHERE seq = 0').run(form)
    db.close()
    const checked = await cli(['check', file, '--json'])
    expect(checked.code).toBe(1)
    const problems = (JSON.parse(checked.stdout) as { problems: { rule: string; detail: string }[] }).problems
    expect(problems.map((p) => p.detail).join('\n')).toMatch(/seq 0: a pruned message has a window form/)

    const lines = exported.stdout.trimEnd().split('\n')
    const line = JSON.parse(lines[1] ?? '') as Record<string, unknown>
    lines[1] = JSON.stringify({ ...line, windowMessage: JSON.parse(form) as unknown })
    const imported = await cli(['import', dir.file('forged.db')], { stdin: `${lines.join('\n')}\n` })
    expect(imported.code).toBe(2)
    expect(imported.stderr).toMatch(/line 2: .*a pruned message has a window form/)
  })
})
