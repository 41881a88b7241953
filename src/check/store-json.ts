/**
 * The store writes every body — a message's, its window form, a summary's — as `JSON.stringify` of a
 * validated copy, so its text is exactly what writing its value again gives. A text that is not (a key
 * twice, other spacing) reads differently to JavaScript (the last key) and to SQLite's JSON functions
 * (the first: the full-text index, retention's SQL), so `import` refuses it and `check` reports it.
 */
import type Database from 'better-sqlite3'
import { prepareSpec } from '../db/typed-statement.js'
import { Offenders, type Fail } from './problems.js'
import { CHECK_READS } from './statements.js'

/**
 * Whether `text` is JSON other than the store writes (text that is not JSON at all is reported by the
 * rules that parse it, so it is not this problem).
 *
 * @param text - a column's text
 * @returns true when it parses but is not `JSON.stringify` of what it parses to
 */
export function notStoreJson(text: string): boolean {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return false
  }
  return JSON.stringify(value) !== text
}

/**
 * Reports every body, window form and summary body of a session that is not the JSON the store writes.
 *
 * @param db - the connection, inside the checker's read transaction
 * @param pk - the session's key
 * @param fail - records a problem
 */
export function checkStoreJson(db: Database.Database, pk: number, fail: Fail): void {
  const bad = new Offenders('body is JSON', 'a body is not the JSON the store writes')
  for (const r of prepareSpec(db, CHECK_READS.bodies).iterate(pk, 0, Number.MAX_SAFE_INTEGER)) {
    if (notStoreJson(r.body)) bad.add({ seq: r.seq, field: 'message' }, `seq ${r.seq} message`)
    if (r.window_body !== null && notStoreJson(r.window_body))
      bad.add({ seq: r.seq, field: 'windowMessage' }, `seq ${r.seq} windowMessage`)
  }
  for (const s of prepareSpec(db, CHECK_READS.summaries).iterate(pk))
    if (notStoreJson(s.body)) bad.add({ summaryId: s.id, field: 'message' }, `summary ${s.id} message`)
  bad.report(fail)
}
