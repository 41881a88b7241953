/**
 * The row rules `import` and `check` share (`src/check/`), as a property: the export of any session the
 * library made (random conversations with tool calls, pins, a message sent again, an edit, windows
 * applied) imports and checks clean; and any one corruption of a kind the library never writes — a body
 * `append` refuses, a `repeatOf` that does not point back, `late` on a message without a late result, the
 * pin flag with no pin, a tool call under another name or recorded twice, a pin actor past 256
 * characters, a trackingId twice — is refused by `import` (`INVALID_EXPORT`, nothing written) and, made
 * on the ledger's rows instead, reported by `check`.
 */
import { copyFileSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { openContextStore, PersistentConversationManager, type StoredMessageData } from '../../src/index.js'
import { conversation } from '../helpers/conversations.js'
import { fcRuns } from '../helpers/runs.js'
import { tempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const dir = tempDir('context-ledger-row-rules-property-')
afterAll(() => {
  dir.cleanup()
})

type Line = Record<string, unknown>
type Body = { content: unknown[]; metadata?: unknown }

/** A session the library makes, by the draws. */
const sessions = fc.record({
  messages: conversation(5, { greetings: false }),
  windowSize: fc.integer({ min: 2, max: 12 }),
  pins: fc.array(fc.tuple(fc.nat(), fc.constantFrom('user', 'agent', 'ops')), { maxLength: 3 }),
  resend: fc.boolean(),
})

/** What a corruption picks: its kind, and a number choosing the row it lands on. */
const corruptions = fc.record({
  kind: fc.constantFrom(
    'blank text',
    'unknown block',
    'empty content',
    '__proto__ key',
    'repeatOf not back',
    'late on a plain message',
    'pin flag without a pin',
    'tool name',
    'tool call twice',
    'long pin actor',
    'trackingId twice',
  ),
  pick: fc.nat(),
})

let files = 0
const file = (): string => dir.file(`f${++files}.db`)

type Session = typeof sessions extends fc.Arbitrary<infer T> ? T : never

/** Builds the session; returns its file and export lines. */
async function build(s: Session): Promise<{ db: string; lines: Line[] }> {
  const db = file()
  const store = openContextStore(db)
  const m = new PersistentConversationManager({ store, sessionId: 's', windowSize: s.windowSize })
  for (const [i, message] of s.messages.entries()) {
    m.append(message)
    if (i % 3 === 2) m.applyWindow()
  }
  for (const [at, actor] of s.pins) m.pin({ seq: at % s.messages.length }, { actor })
  // The first message again (the conversation ends on an assistant reply): a repeat of seq 0.
  if (s.resend && s.messages.length > 1) m.append(s.messages[0] as StoredMessageData)
  m.edit({ seq: 0 }, { role: 'user', content: [{ text: 'edited' }] }, { actor: 'support' })
  m.applyWindow()
  store.close()
  const r = await cli(['export', db, 's'])
  expect(r.code, r.stderr).toBe(0)
  return {
    db,
    lines: r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line),
  }
}

const SESSION = "(SELECT pk FROM sessions WHERE id = 's')"

/**
 * Applies a corruption to a copy of the export's lines, and says how to make it on the rows; undefined
 * when the session has no row it applies to.
 */
function corrupt(
  lines: Line[],
  kind: string,
  pick: number,
): { lines: Line[]; sql?: string; rule: string } | undefined {
  const ls = JSON.parse(JSON.stringify(lines)) as Line[]
  const of = (type: string, test: (l: Line) => boolean = () => true): Line | undefined => {
    const all = ls.filter((l) => l.type === type && test(l))
    return all[pick % Math.max(1, all.length)]
  }
  const results = (l: Line): boolean =>
    (l.message as Body).content.some((b) => typeof b === 'object' && b !== null && 'toolResult' in b)
  const pinned = new Set(ls.filter((l) => l.type === 'pinEvent').map((l) => l.seq))
  const m = of('message')
  if (m === undefined) return undefined
  const body = m.message as Body
  const at = `session = ${SESSION} AND seq = ${String(m.seq)}`
  switch (kind) {
    case 'blank text':
      body.content.push({ text: ' ' })
      return {
        lines: ls,
        sql: `UPDATE messages SET body = json_insert(body, '$.content[#]', json('{"text":" "}')) WHERE ${at}`,
        rule: 'message body',
      }
    case 'unknown block':
      body.content.push({ thought: 'x' })
      return {
        lines: ls,
        sql: `UPDATE messages SET body = json_insert(body, '$.content[#]', json('{"thought":"x"}')) WHERE ${at}`,
        rule: 'message body',
      }
    case 'empty content':
      body.content = []
      return {
        lines: ls,
        sql: `UPDATE messages SET body = json_set(body, '$.content', json('[]')) WHERE ${at}`,
        rule: 'message body',
      }
    case '__proto__ key':
      body.metadata = JSON.parse('{"custom":{"__proto__":{}}}') as unknown
      return {
        lines: ls,
        sql: `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"__proto__":{}}}')) WHERE ${at}`,
        rule: 'message body',
      }
    case 'repeatOf not back': {
      const to = (m.seq as number) + (pick % 2)
      m.repeatOf = to
      return { lines: ls, sql: `UPDATE messages SET repeat_of = ${to} WHERE ${at}`, rule: 'repeat of' }
    }
    case 'late on a plain message': {
      const plain = of('message', (l) => !results(l))
      if (plain === undefined) return undefined
      plain.late = true
      return {
        lines: ls,
        sql: `UPDATE messages SET late = 1 WHERE session = ${SESSION} AND seq = ${String(plain.seq)}`,
        rule: 'late flag',
      }
    }
    case 'pin flag without a pin': {
      const loose = of('message', (l) => !pinned.has(l.seq))
      if (loose === undefined) return undefined
      ;(loose.message as Body).metadata = { custom: { pinned: true } }
      return {
        lines: ls,
        sql: `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"pinned":true}}')) WHERE session = ${SESSION} AND seq = ${String(loose.seq)}`,
        rule: 'pin flag in body',
      }
    }
    case 'tool name': {
      const t = of('toolCall')
      if (t === undefined) return undefined
      t.name = `${String(t.name)}-renamed`
      return {
        lines: ls,
        sql: `UPDATE tool_calls SET name = name || '-renamed' WHERE session = ${SESSION} AND tool_use_id = '${String(t.toolUseId)}'`,
        rule: 'tool links',
      }
    }
    case 'tool call twice': {
      const t = of('toolCall')
      if (t === undefined) return undefined
      ls.splice(ls.indexOf(t) + 1, 0, { ...t })
      ;(ls[0]?.counts as { toolCalls: number }).toolCalls++
      return {
        lines: ls,
        sql: `INSERT INTO tool_calls (session, tool_use_id, name, use_seq, result_seq, status) SELECT session, tool_use_id, name, use_seq, result_seq, status FROM tool_calls WHERE session = ${SESSION} AND tool_use_id = '${String(t.toolUseId)}'`,
        rule: 'tool links',
      }
    }
    case 'long pin actor': {
      const e = of('pinEvent')
      if (e === undefined) return undefined
      e.actor = 'x'.repeat(10_000)
      const nth = ls.filter((l) => l.type === 'pinEvent').indexOf(e)
      return {
        lines: ls,
        sql: `UPDATE pin_events SET actor = replace(hex(zeroblob(5000)), '0', 'x') WHERE id = (SELECT id FROM pin_events WHERE session = ${SESSION} ORDER BY id LIMIT 1 OFFSET ${nth})`,
        rule: 'pin log',
      }
    }
    default: {
      // A trackingId twice: the unique index keeps it out of a ledger, so import alone is asked.
      const all = ls.filter((l) => l.type === 'message')
      if (all.length < 2) return undefined
      const a = all[pick % all.length] as Line
      const b = all[(pick + 1) % all.length] as Line
      b.trackingId = a.trackingId
      ;(b.message as { trackingId?: unknown }).trackingId = a.trackingId
      return { lines: ls, rule: 'archive unique' }
    }
  }
}

const text = (ls: Line[]): string => ls.map((l) => JSON.stringify(l)).join('\n') + '\n'

describe('import and check agree, on sessions the library made and on one corruption of them', () => {
  it('an export of a valid session imports and checks clean; a corrupted one is refused and reported', async () => {
    await fc.assert(
      fc.asyncProperty(sessions, corruptions, async (s, c) => {
        const { db, lines } = await build(s)
        expect((await cli(['check', db])).code).toBe(0)
        const target = file()
        const imported = await cli(['import', target], { stdin: text(lines) })
        expect(imported.code, imported.stderr).toBe(0)
        expect((await cli(['check', target])).code).toBe(0)

        const bad = corrupt(lines, c.kind, c.pick)
        if (bad === undefined) return
        const refused = file()
        const r = await cli(['import', refused, '--json'], { stdin: text(bad.lines) })
        expect(r.code, `${c.kind}: ${r.stdout}`).toBe(2)
        expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_EXPORT' } })
        expect(existsSync(refused)).toBe(false)
        if (bad.sql === undefined) return
        const copy = file()
        copyFileSync(db, copy)
        const raw = new Database(copy)
        raw.exec(bad.sql)
        raw.close()
        const checked = await cli(['check', copy, '--json'])
        expect(checked.code).toBe(1)
        const rules = (JSON.parse(checked.stdout) as { problems: { rule: string }[] }).problems.map(
          (p) => p.rule,
        )
        expect(rules, c.kind).toContain(bad.rule)
      }),
      { numRuns: fcRuns(15) },
    )
  })
})
