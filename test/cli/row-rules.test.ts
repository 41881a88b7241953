/**
 * One set of row rules for `import` and `check` (`src/check/`): a row the library would refuse to write
 * through its API — a body `append` refuses (an empty text block, an unknown block kind, no content, a
 * `__proto__` key, a blank summary), a tool-call row twice or under another name than its call, a pin
 * actor past its 256 characters, a `repeatOf` that does not point back, `late` on a message holding no
 * late result, the pin flag in a body no pin stands behind — is refused by `import` (`INVALID_EXPORT`
 * naming the line and the field, nothing written) and reported by `check` (the rule, the seq and the
 * path) when it is in a file. Each case below makes the same corruption twice: on the export's lines, and
 * with better-sqlite3 on a copy of the ledger.
 */
import { copyFileSync, existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { buildRichLedger, cli } from './support.js'

let dir: TempDir
let rich: string
let lines: Line[]

type Line = Record<string, unknown>

beforeAll(async () => {
  dir = tempDir('context-ledger-row-rules-')
  rich = dir.file('rich.db')
  const store = openContextStore(rich)
  await buildRichLedger(store)
  store.close()
  const r = await cli(['export', rich, 'support-42'])
  expect(r.code, r.stderr).toBe(0)
  lines = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
})
afterAll(() => {
  dir.cleanup()
})

/** The export with `change` applied to a copy of its lines, as text. */
function edited(change: (ls: Line[]) => void): string {
  const copy = JSON.parse(JSON.stringify(lines)) as Line[]
  change(copy)
  return copy.map((l) => JSON.stringify(l)).join('\n') + '\n'
}

const find = (ls: Line[], test: (l: Line) => boolean, what: string): Line => {
  const l = ls.find(test)
  if (l === undefined) throw new Error(`no ${what}`)
  return l
}
const message = (ls: Line[], seq: number): Line =>
  find(ls, (l) => l.type === 'message' && l.seq === seq, `message ${seq}`)
const body = (ls: Line[], seq: number): Record<string, unknown> =>
  message(ls, seq).message as Record<string, unknown>
const toolCall = (ls: Line[], id: string): Line =>
  find(ls, (l) => l.type === 'toolCall' && l.toolUseId === id, `tool call ${id}`)
/** The line number of the first line `test` picks in the unedited export (the header is line 1). */
const lineOf = (test: (l: Line) => boolean): number => lines.findIndex(test) + 1
const messageLine = (seq: number): number => seq + 2

const RICH = "(SELECT pk FROM sessions WHERE id = 'support-42')"
const msg = (seq: number): string => `session = ${RICH} AND seq = ${seq}`
let copies = 0
/** A copy of the rich ledger changed by `sql`. */
function corrupted(sql: readonly string[]): string {
  const file = dir.file(`broken-${++copies}.db`)
  copyFileSync(rich, file)
  const db = new Database(file)
  for (const s of sql) db.exec(s)
  db.close()
  return file
}

interface Case {
  /** The corruption made on the export's lines. */
  readonly edit: (ls: Line[]) => void
  /** The same corruption made on the ledger's rows. */
  readonly sql: readonly string[]
  /** The line `import` names. */
  readonly line: () => number
  /** The field it names, as the error spells it. */
  readonly field: string
  /** The rule `check` reports, and what its detail names. */
  readonly rule: string
  readonly detail: RegExp
}

const cases: Record<string, Case> = {
  'an empty text block': {
    edit: (ls) => {
      body(ls, 6).content = [{ text: '' }]
    },
    sql: [`UPDATE messages SET body = json_set(body, '$.content[0].text', '') WHERE ${msg(6)}`],
    line: () => messageLine(6),
    field: 'message.content[0].text',
    rule: 'message body',
    detail: /seq 6 message\.content\[0\]\.text: blank text/,
  },
  'an unknown block kind': {
    edit: (ls) => {
      body(ls, 9).content = [{ thought: 'hmm' }]
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.content[0]', json('{"thought":"hmm"}')) WHERE ${msg(9)}`,
    ],
    line: () => messageLine(9),
    field: 'message.content[0].thought',
    rule: 'message body',
    detail: /seq 9 message\.content\[0\]\.thought: unknown content block kind/,
  },
  'empty content': {
    edit: (ls) => {
      body(ls, 9).content = []
    },
    sql: [`UPDATE messages SET body = json_set(body, '$.content', json('[]')) WHERE ${msg(9)}`],
    line: () => messageLine(9),
    field: 'message.content',
    rule: 'message body',
    detail: /seq 9 message\.content: a message needs at least one content block/,
  },
  'a __proto__ key in metadata': {
    edit: (ls) => {
      body(ls, 6).metadata = JSON.parse('{"custom":{"__proto__":{"polluted":true}}}') as unknown
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"__proto__":{"polluted":true}}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.__proto__',
    rule: 'message body',
    detail: /seq 6 message\.metadata\.custom\.__proto__/,
  },
  'a content block that is null, in the window (the checker threw on it)': {
    edit: (ls) => {
      body(ls, 29).content = [null]
    },
    sql: [`UPDATE messages SET body = json_set(body, '$.content', json('[null]')) WHERE ${msg(29)}`],
    line: () => messageLine(29),
    field: 'message.content[0]',
    rule: 'message body',
    detail: /seq 29 message\.content\[0\]: expected a content block object, got null/,
  },
  'a body that is null (the checker threw on it)': {
    edit: (ls) => {
      body(ls, 31).content = null
    },
    sql: [`UPDATE messages SET body = 'null' WHERE ${msg(31)}`],
    line: () => messageLine(31),
    field: 'message.content',
    rule: 'message body',
    detail: /seq 31 message(\.content)?: Invalid input/,
  },
  'a window form append would refuse': {
    edit: (ls) => {
      ;(message(ls, 5).windowMessage as { content: unknown[] }).content = [{ text: ' ' }]
    },
    sql: [
      `UPDATE messages SET window_body = json_set(window_body, '$.content[0].text', ' ') WHERE ${msg(5)}`,
    ],
    line: () => messageLine(5),
    field: 'windowMessage.content[0].text',
    rule: 'message body',
    detail: /seq 5 windowMessage\.content\[0\]\.text: blank text/,
  },
  'a blank summary (one that has ended)': {
    edit: (ls) => {
      const s = find(ls, (l) => l.type === 'summary' && l.id === 1, 'summary 1')
      ;(s.message as { content: unknown[] }).content = [{ text: '   ' }]
    },
    sql: [`UPDATE summaries SET body = json_set(body, '$.content[0].text', '   ') WHERE id = 1`],
    line: () => lineOf((l) => l.type === 'summary' && l.id === 1),
    field: 'message.content[0].text',
    rule: 'summary body',
    detail: /summary 1 message\.content\[0\]\.text: blank text/,
  },
  'the current summary without the ledger’s marker': {
    edit: (ls) => {
      const s = find(ls, (l) => l.type === 'summary' && l.id === 2, 'summary 2')
      delete (s.message as { metadata?: unknown }).metadata
    },
    sql: [`UPDATE summaries SET body = json_remove(body, '$.metadata') WHERE id = 2`],
    line: () => lineOf((l) => l.type === 'summary' && l.id === 2),
    field: 'message.metadata',
    rule: 'summary body',
    detail: /summary 2 lacks the ledger's marker/,
  },
  'a blank edit': {
    edit: (ls) => {
      const e = find(ls, (l) => l.type === 'edit' && l.kind === 'edit', 'edit')
      ;(e.message as { content: unknown[] }).content = [{ text: '' }]
    },
    sql: [
      `UPDATE message_edits SET body = json_set(body, '$.content[0].text', '') WHERE kind = 'edit' AND session = ${RICH}`,
    ],
    line: () => lineOf((l) => l.type === 'edit' && l.kind === 'edit'),
    field: 'message.content[0].text',
    rule: 'edit body',
    detail: /seq 5 message\.content\[0\]\.text: blank text/,
  },
  'a tool-call row twice': {
    edit: (ls) => {
      const at = ls.indexOf(toolCall(ls, 't1'))
      ls.splice(at + 1, 0, { ...toolCall(ls, 't1') })
      ;(ls[0]?.counts as { toolCalls: number }).toolCalls++
    },
    sql: [
      `INSERT INTO tool_calls (session, tool_use_id, name, use_seq, result_seq, status)
        SELECT session, tool_use_id, name, use_seq, result_seq, status FROM tool_calls WHERE tool_use_id = 't1'`,
    ],
    line: () => lineOf((l) => l.type === 'toolCall' && l.toolUseId === 't1') + 1,
    field: 'toolUseId',
    rule: 'tool links',
    detail: /tool call t1 of seq 7 is recorded twice/,
  },
  'a tool-call name that is not its call’s': {
    edit: (ls) => {
      toolCall(ls, 't1').name = 'drop_table'
    },
    sql: [`UPDATE tool_calls SET name = 'drop_table' WHERE tool_use_id = 't1'`],
    line: () => lineOf((l) => l.type === 'toolCall' && l.toolUseId === 't1'),
    field: 'name',
    rule: 'tool links',
    detail: /tool call t1 is named drop_table, seq 7 calls run_sql/,
  },
  'a tool-call status that is not its result’s': {
    edit: (ls) => {
      toolCall(ls, 't1').status = 'error'
    },
    sql: [`UPDATE tool_calls SET status = 'error' WHERE tool_use_id = 't1'`],
    line: () => lineOf((l) => l.type === 'toolCall' && l.toolUseId === 't1'),
    field: 'status',
    rule: 'tool links',
    detail: /tool call t1 has status error, seq 8 answers it with success/,
  },
  'a 10,000-character pin actor': {
    edit: (ls) => {
      find(ls, (l) => l.type === 'pinEvent' && l.seq === 4, 'pin of 4').actor = 'x'.repeat(10_000)
    },
    sql: [`UPDATE pin_events SET actor = replace(hex(zeroblob(5000)), '0', 'x') WHERE seq = 4`],
    line: () => lineOf((l) => l.type === 'pinEvent' && l.seq === 4),
    field: 'actor',
    rule: 'pin log',
    detail: /pin event of seq 4: expected 1–256 characters, got 10000/,
  },
  'a repeatOf pointing forward': {
    edit: (ls) => {
      message(ls, 6).repeatOf = 20
    },
    sql: [`UPDATE messages SET repeat_of = 20 WHERE ${msg(6)}`],
    line: () => messageLine(6),
    field: 'repeatOf',
    rule: 'repeat of',
    detail: /seq 6 repeats seq 20, which is not earlier/,
  },
  'a repeatOf pointing to itself': {
    edit: (ls) => {
      message(ls, 6).repeatOf = 6
    },
    sql: [`UPDATE messages SET repeat_of = 6 WHERE ${msg(6)}`],
    line: () => messageLine(6),
    field: 'repeatOf',
    rule: 'repeat of',
    detail: /seq 6 repeats seq 6, which is not earlier/,
  },
  'late on a plain message': {
    edit: (ls) => {
      message(ls, 9).late = true
    },
    sql: [`UPDATE messages SET late = 1 WHERE ${msg(9)}`],
    line: () => messageLine(9),
    field: 'late',
    rule: 'late flag',
    detail: /seq 9 is marked late, and holds no late tool result/,
  },
  'the pin flag in a body no pin stands behind': {
    edit: (ls) => {
      body(ls, 6).metadata = { custom: { pinned: true } }
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"pinned":true}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.pinned',
    rule: 'pin flag in body',
    detail: /seq 6 carries metadata\.custom\.pinned, and no pin event records it/,
  },
  'a pruned note on a body that still holds its text (retention would never erase it)': {
    edit: (ls) => {
      body(ls, 6).metadata = { custom: { contextLedger: { pruned: true } } }
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"contextLedger":{"pruned":true}}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.contextLedger',
    rule: 'reserved note',
    detail: /seq 6 carries the pruned note, and is not the pruned form retention writes/,
  },
  'a repair note on a body that is no repair row': {
    edit: (ls) => {
      body(ls, 6).metadata = { custom: { contextLedger: { repair: 'missing-tool-result' } } }
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"contextLedger":{"repair":"missing-tool-result"}}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.contextLedger',
    rule: 'reserved note',
    detail: /seq 6 carries the repair note, and is not the repair row the store writes/,
  },
  'the summary marker on an archived body': {
    edit: (ls) => {
      body(ls, 6).metadata = { custom: { contextLedger: { summary: true } } }
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"contextLedger":{"summary":true}}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.contextLedger',
    rule: 'reserved note',
    detail: /seq 6 carries the summary note, which no archived body holds/,
  },
  'a mergedFrom note on an archived body': {
    edit: (ls) => {
      body(ls, 6).metadata = { custom: { contextLedger: { mergedFrom: ['a', 'b'] } } }
    },
    sql: [
      `UPDATE messages SET body = json_set(body, '$.metadata', json('{"custom":{"contextLedger":{"mergedFrom":["a","b"]}}}')) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message.metadata.custom.contextLedger',
    rule: 'reserved note',
    detail: /seq 6 carries the mergedFrom note, which no archived body holds/,
  },
  'the pin flag or the summary marker in a window form only': {
    edit: (ls) => {
      ;(message(ls, 5).windowMessage as Record<string, unknown>).metadata = {
        custom: { pinned: true, contextLedger: { summary: true } },
      }
    },
    sql: [
      `UPDATE messages SET window_body = json_set(window_body, '$.metadata', json('{"custom":{"pinned":true,"contextLedger":{"summary":true}}}')) WHERE ${msg(5)}`,
    ],
    line: () => messageLine(5),
    field: 'windowMessage.metadata',
    rule: 'reserved note',
    detail: /seq 5: the window form carries other metadata than the body/,
  },
  'a body with a key twice (JavaScript reads the last, SQLite the first)': {
    edit: (ls) => {
      const m = message(ls, 6)
      const text = JSON.stringify(m.message)
      m.message = `{"role":"user","content":[{"text":"dup"}],${text.slice(1)}`
      m.raw = ['message']
    },
    sql: [
      `UPDATE messages SET body = '{"role":"user","content":[{"text":"dup"}],' || substr(body, 2) WHERE ${msg(6)}`,
    ],
    line: () => messageLine(6),
    field: 'message',
    rule: 'body is JSON',
    detail: /a body is not the JSON the store writes: seq 6 message/,
  },
}

describe('import refuses, and check reports, a row the library would not write', () => {
  it.each(Object.entries(cases))('%s', async (_what, c) => {
    const fresh = dir.file(`fresh-${++copies}.db`)
    const r = await cli(['import', fresh, '--json'], { stdin: edited(c.edit) })
    expect(r.code, r.stdout).toBe(2)
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } }
    expect(error.code).toBe('INVALID_EXPORT')
    expect(error.message).toContain(`line ${c.line()}: ${c.field}: `)
    expect(error.message).toContain('nothing was imported')
    for (const side of ['', '-wal', '-shm']) expect(existsSync(fresh + side)).toBe(false)

    const file = corrupted(c.sql)
    const checked = await cli(['check', file, '--json'])
    expect(checked.code).toBe(1)
    const report = JSON.parse(checked.stdout) as { problems: { rule: string; detail: string }[] }
    const found = report.problems.filter((p) => p.rule === c.rule)
    expect(found, JSON.stringify(report.problems, null, 2)).not.toHaveLength(0)
    expect(found.map((p) => p.detail).join('\n')).toMatch(c.detail)
  })
})

describe('import refuses a trackingId twice before writing, naming both lines', () => {
  it('two messages', async () => {
    const input = edited((ls) => {
      const twin = message(ls, 6).trackingId
      message(ls, 9).trackingId = twin
      body(ls, 9).trackingId = twin
    })
    const r = await cli(['import', dir.file('twice.db'), '--json'], { stdin: input })
    expect(r.code).toBe(2)
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } }
    expect(error.code).toBe('INVALID_EXPORT')
    expect(error.message).toMatch(
      new RegExp(`^line ${messageLine(9)}: trackingId .* is the trackingId of line ${messageLine(6)} too`),
    )
  })

  it('two summaries', async () => {
    const input = edited((ls) => {
      const [a, b] = ls.filter((l) => l.type === 'summary')
      if (a === undefined || b === undefined) throw new Error('two summaries')
      b.trackingId = a.trackingId
      ;(b.message as { trackingId: unknown }).trackingId = a.trackingId
    })
    const r = await cli(['import', dir.file('twice.db'), '--json'], { stdin: input })
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } }
    expect(error.code).toBe('INVALID_EXPORT')
    const first = lineOf((l) => l.type === 'summary')
    expect(error.message).toMatch(
      new RegExp(`^line ${first + 1}: trackingId .* is the trackingId of line ${first} too`),
    )
  })
})
