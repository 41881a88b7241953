/**
 * Every statement is declared with the row type its results are typed with and the list of its result
 * columns (`src/db/typed-statement.ts`); the compiler checks the list against the row type, and this test
 * checks it against what SQLite reports for the SQL on a real, migrated ledger. Together they keep the
 * row types true without a cast on any statement result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APPLICATION_ID } from '../../src/db/identity.js'
import { LIFECYCLE_STATEMENTS } from '../../src/db/lifecycle-statements.js'
import { readMigrations, SET_USER_VERSION } from '../../src/db/migrate.js'
import { STATEMENTS } from '../../src/db/statements.js'
import { CHECK_READS } from '../../src/check/statements.js'
import { CLI_READS } from '../../src/cli/statements.js'
import { CLI_WRITES, IMPORT_READS } from '../../src/cli/import-statements.js'
import { EXPORT_READS } from '../../src/cli/export-statements.js'
import { TREE_READS } from '../../src/check/tree-rules.js'
import { BRANCH_PENDING_STATEMENTS, BRANCH_RECALL_STATEMENTS } from '../../src/db/branch-recall-statements.js'
import { CREATE_PENDING_INDEX } from '../../src/db/recall-statements.js'
import { rows, type AnySpec } from '../../src/db/typed-statement.js'
import type { ContextStore } from '../../src/index.js'
import { tempStore } from '../helpers/temp-store.js'

let store: ContextStore
let cleanup: () => void
beforeAll(() => {
  ;({ store, cleanup } = tempStore())
  // The pending rows' temporary index, which the branch search's pending statement reads.
  store.connection().exec(CREATE_PENDING_INDEX)
})
afterAll(() => {
  cleanup()
})

const declared: [string, AnySpec][] = [
  ...Object.entries(STATEMENTS),
  ...Object.entries(LIFECYCLE_STATEMENTS),
  ...Object.entries(CLI_READS),
  ...Object.entries(CLI_WRITES),
  ...Object.entries(CHECK_READS),
  ...Object.entries(EXPORT_READS),
  ...Object.entries(IMPORT_READS),
  ...Object.entries(TREE_READS),
  ...Object.entries(BRANCH_RECALL_STATEMENTS),
  ...Object.entries(BRANCH_PENDING_STATEMENTS),
]

describe('each statement', () => {
  it.each(declared)('%s returns the columns its row type declares', (_name, spec) => {
    const statement = store.connection().prepare(spec.sql)
    if (spec.kind === 'write') {
      expect(statement.reader).toBe(false)
      return
    }
    expect(statement.reader).toBe(true)
    expect(statement.columns().map((c) => c.name)).toStrictEqual([...spec.columns])
    if (spec.kind === 'value') expect(spec.columns).toHaveLength(1)
  })

  it('list is checked against its row type by the compiler', () => {
    // Type-level: `npm run typecheck` fails when an expected error below disappears.
    // @ts-expect-error a column of the row type is missing from the list
    rows<[], { a: number; b: number }>('SELECT 1 AS a, 2 AS b', { a: true })
    // @ts-expect-error the list names a column the row type does not have
    rows<[], { a: number }>('SELECT 1 AS a', { a: true, b: true })
    expect(rows<[], { a: number }>('SELECT 1 AS a', { a: true }).columns).toStrictEqual(['a'])
  })
})

describe('the pragmas set from literal text', () => {
  it('cover every shipped migration, each with its own schema version', () => {
    const count = readMigrations().length
    expect(SET_USER_VERSION.length).toBeGreaterThanOrEqual(count)
    SET_USER_VERSION.forEach((text, i) => {
      expect(text).toBe(`user_version = ${i + 1}`)
    })
  })

  it('leave a new ledger marked as one, at the current schema version', () => {
    const db = store.connection()
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID)
    expect(db.pragma('user_version', { simple: true })).toBe(readMigrations().length)
  })
})
