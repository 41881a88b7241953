/**
 * No SQL is built by concatenating values. ESLint's `no-restricted-syntax` rule refuses template
 * interpolation and `+` in `prepare()` / `exec()` / `pragma()` arguments; this test is the second guard, immune to an
 * `eslint-disable` comment or a changed config: it parses every file under `src/` with the TypeScript
 * compiler and fails on any `prepare`/`exec`/`pragma` call whose SQL argument interpolates or concatenates, or
 * that is handed a variable assembled that way in the same file.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { WORKERS } from './support.js'

const ROOT = join(WORKERS, '..', '..', '..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** True when `node` builds a string from parts: `${…}` templates or `+`. */
function assembles(node: ts.Node): boolean {
  if (ts.isTemplateExpression(node)) return true
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return true
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return assembles(node.expression)
  if (ts.isConditionalExpression(node)) return assembles(node.whenTrue) || assembles(node.whenFalse)
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression))
    return ['concat', 'join', 'replace', 'replaceAll'].includes(node.expression.name.text)
  return false
}

/** Every `x.prepare(sql)` / `x.exec(sql)` / `x.pragma(sql)` in `text` whose SQL is assembled, as `file:line: text`. */
function offenders(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
  const assembled = new Set<string>()
  const calls: ts.CallExpression[] = []
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      assembles(node.initializer)
    )
      assembled.add(node.name.text)
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['prepare', 'exec', 'pragma'].includes(node.expression.name.text)
    )
      calls.push(node)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return calls
    .filter((call) => {
      const arg = call.arguments[0]
      return arg !== undefined && (assembles(arg) || (ts.isIdentifier(arg) && assembled.has(arg.text)))
    })
    .map((call) => {
      const line = source.getLineAndCharacterOfPosition(call.getStart()).line + 1
      return `${relative(ROOT, file)}:${line}: ${call.getText().slice(0, 80)}`
    })
}

describe('SQL text', () => {
  it('is never assembled from values in src/', () => {
    const files = sourceFiles(SRC)
    expect(files.length).toBeGreaterThan(10)
    expect(files.flatMap((f) => offenders(f))).toStrictEqual([])
  })

  it('is not exempted from the lint rule by a disable comment', () => {
    const disabled = sourceFiles(SRC).filter((f) =>
      /eslint-disable(-next-line|-line)?[^\n]*no-restricted-syntax/.test(readFileSync(f, 'utf8')),
    )
    expect(disabled).toStrictEqual([])
  })

  it('catches what it is meant to catch', () => {
    const samples = [
      'db.prepare(`SELECT * FROM t WHERE id = ${id}`)',
      "db.exec('DELETE FROM t WHERE id = ' + id)",
      'const q = `SELECT ${col} FROM t`\ndb.prepare(q)',
      "db.prepare(['SELECT', col, 'FROM t'].join(' '))",
      "db.prepare(cond ? 'SELECT 1' : 'SELECT ' + col)",
      'db.pragma(`journal_size_limit = ${limit}`)',
    ]
    for (const sample of samples) expect(offenders('probe.ts', sample), sample).toHaveLength(1)
    expect(offenders('probe.ts', "db.prepare('SELECT * FROM t WHERE id = ?').get(id)")).toStrictEqual([])
  })
})
