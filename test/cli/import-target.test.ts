/**
 * `import` into a file that does not exist builds the ledger under a temporary name beside it and
 * publishes it only when the import is complete, without replacing anything: a process that opens the
 * target meanwhile (an agent) sees no file, creates its own, and keeps every message it appended — a
 * refused import never removes it, a good one refuses to publish over it (`FILE_EXISTS`). No temporary
 * file is left behind, whatever ends the import.
 *
 * The agent opens the target from inside the import's write (the import's progress line on a terminal
 * calls the test's stderr), with its own connection through `openContextStore`.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openContextStore, type ContextStore } from '../../src/index.js'
import type { CliIo } from '../../src/cli/io.js'
import { runCli } from '../../src/cli/program.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

/** Enough messages for the import's progress line to be written from inside its transaction. */
const MESSAGES = 1500

let source: TempDir
let good: string
let bad: string

beforeAll(async () => {
  source = tempDir('context-ledger-import-target-src-')
  const file = source.file('source.db')
  const store = openContextStore(file)
  for (let i = 0; i < MESSAGES; i += 100)
    store.append(
      'imported',
      Array.from({ length: 100 }, (_, j) => ({
        role: (i + j) % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: [{ text: `message ${i + j}` }],
      })),
    )
  store.close()
  const r = await cli(['export', file, 'imported'])
  expect(r.code, r.stderr).toBe(0)
  good = source.file('good.jsonl')
  writeFileSync(good, r.stdout)
  // Well-formed lines that together describe no session: the last message's running sum is off by one.
  const lines = r.stdout.trimEnd().split('\n')
  const last = JSON.parse(lines[MESSAGES] ?? '') as { cumTokens: number }
  last.cumTokens += 1
  lines[MESSAGES] = JSON.stringify(last)
  bad = source.file('bad.jsonl')
  writeFileSync(bad, `${lines.join('\n')}\n`)
})
afterAll(() => {
  source.cleanup()
})

let dir: TempDir
beforeEach(() => {
  dir = tempDir('context-ledger-import-target-')
  return () => {
    dir.cleanup()
  }
})

/** Runs `import` with a terminal stderr whose first progress line runs `during`. */
async function importWith(
  argv: readonly string[],
  during: () => void,
): Promise<{ code: number; stdout: string; stderr: string; ran: boolean }> {
  let stdout = ''
  let stderr = ''
  let ran = false
  const io: CliIo = {
    stdout: {
      isTTY: false,
      write: (s: string) => {
        stdout += s
        return true
      },
    },
    stderr: {
      isTTY: true,
      columns: 100,
      write: (s: string) => {
        if (!ran && s.includes('importing')) {
          ran = true
          during()
        }
        stderr += s
        return true
      },
    },
    stdin: Object.assign(new PassThrough(), { isTTY: false }),
    env: {},
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr, ran }
}

/** An agent's appends to `target`: each acknowledged (returned) before the next. */
function agentAppends(agent: ContextStore, n: number): void {
  for (let i = 0; i < n; i++)
    agent.append('agent', [{ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ text: `ack ${i}` }] }])
}

function messagesIn(path: string, sessionId: string): number {
  const store = openContextStore(path, { readonly: true })
  try {
    return store.session(sessionId)?.messageCount ?? 0
  } finally {
    store.close()
  }
}

describe('import never removes or replaces a file someone else opened', () => {
  it('a refused import leaves the ledger an agent created meanwhile, with every acknowledged message', async () => {
    const target = dir.file('agent.db')
    let agent: ContextStore | undefined
    const r = await importWith(['import', target, '-i', bad, '--json'], () => {
      agent = openContextStore(target)
    })
    expect(r.ran).toBe(true)
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_EXPORT' } })
    if (agent === undefined) throw new Error('the agent did not open the file')
    agentAppends(agent, 344)
    agent.close()
    expect(messagesIn(target, 'agent')).toBe(344)
    expect(readdirSync(dir.path).filter((f) => !f.startsWith('agent.db'))).toStrictEqual([])
  })

  it('a good import refuses to publish over a file created meanwhile, and leaves it alone', async () => {
    const target = dir.file('agent.db')
    let agent: ContextStore | undefined
    const r = await importWith(['import', target, '-i', good, '--json'], () => {
      agent = openContextStore(target)
      agentAppends(agent, 10)
    })
    expect(r.ran).toBe(true)
    expect(r.code).toBe(2)
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('FILE_EXISTS')
    expect(error.message).toContain('nothing was imported')
    if (agent === undefined) throw new Error('the agent did not open the file')
    agentAppends(agent, 5)
    agent.close()
    expect(messagesIn(target, 'agent')).toBe(15)
    expect(messagesIn(target, 'imported')).toBe(0)
    expect(readdirSync(dir.path).filter((f) => !f.startsWith('agent.db'))).toStrictEqual([])
  })

  it('shows a concurrent opener nothing until the import is complete, then the whole session', async () => {
    const target = dir.file('agent.db')
    let seen: string[] | undefined
    const r = await importWith(['import', target, '-i', good], () => {
      seen = readdirSync(dir.path).filter((f) => f.startsWith('agent.db'))
    })
    expect(r.code, r.stderr).toBe(0)
    expect(seen).toStrictEqual([])
    // No temporary file left, and the published ledger's log was checkpointed into it.
    expect(readdirSync(dir.path)).toStrictEqual(['agent.db'])
    expect(messagesIn(target, 'imported')).toBe(MESSAGES)
  })

  it('removes its temporary file when an error is thrown mid-import', async () => {
    const target = dir.file('agent.db')
    const r = await importWith(['import', target, '-i', good], () => {
      throw new Error('the disk went away')
    })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('the disk went away')
    expect(readdirSync(dir.path)).toStrictEqual([])
  })

  it('refuses a target that is a dangling symbolic link or a named pipe, naming it, and creates nothing', async () => {
    const link = dir.file('link.db')
    symlinkSync(`${dir.path}/nowhere/agent.db`, link)
    const r = await cli(['import', link, '-i', good])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${link} is a symbolic link to`)
    expect(r.stderr).toContain('which does not exist; nothing was imported')
    const pipe = dir.file('pipe.db')
    execFileSync('mkfifo', [pipe])
    const p = await cli(['import', pipe, '-i', good])
    expect(p.code).toBe(2)
    expect(p.stderr).toContain('named pipe (FIFO)')
    expect(readdirSync(dir.path).sort()).toStrictEqual(['link.db', 'pipe.db'])
  })

  it('a refused import into an existing ledger leaves it byte for byte', async () => {
    const target = dir.file('agent.db')
    const agent = openContextStore(target)
    agentAppends(agent, 3)
    agent.close()
    const before = readFileSync(target)
    const r = await cli(['import', target, '-i', bad])
    expect(r.code).toBe(2)
    expect(readFileSync(target).equals(before)).toBe(true)
    expect(messagesIn(target, 'agent')).toBe(3)
  })
})
