/**
 * A read command run as another user than the ledger's owner must not leave side files behind that the
 * owner's agents cannot write (`src/cli/other-user.ts`). The processes run as real users (`su`), so the
 * end-to-end tests need root and the `daemon` (the owner) and `nobody` (the reader) accounts; they are
 * skipped elsewhere. The rest runs in-process with the reader's uid faked.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { changedDuringRead, readAccess } from '../../src/cli/other-user.js'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { cli } from './support.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAIN = join(ROOT, 'src', 'cli', 'main.ts')
const INDEX = join(ROOT, 'src', 'index.ts')

/** The uid of a user, or undefined when there is none. */
function uidOf(user: string): number | undefined {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' })
  return r.status === 0 ? Number(r.stdout.trim()) : undefined
}

const OWNER = 'daemon'
const READER = 'nobody'
const ownerUid = uidOf(OWNER)
const asRoot = process.geteuid?.() === 0
const canSu =
  asRoot &&
  ownerUid !== undefined &&
  uidOf(READER) !== undefined &&
  spawnSync('su', [READER, '-s', '/bin/sh', '-c', 'true']).status === 0

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`

/** Runs a shell command as `user`, in the repository. */
function as(user: string, command: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('su', [user, '-s', '/bin/sh', '-c', `cd ${quote(ROOT)} && HOME=/tmp ${command}`], {
    encoding: 'utf8',
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** `context-ledger …` as `user`. */
function cliAs(user: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return as(user, `${quote(process.execPath)} --import tsx ${quote(MAIN)} ${args.map(quote).join(' ')}`)
}

let dir: TempDir
let writer: string

beforeAll(() => {
  dir = tempDir('context-ledger-other-user-')
  chmodSync(dir.path, 0o777)
  // An agent of the owner's: appends one message and closes (exit 0), or prints READ_ONLY.
  writer = dir.file('writer.ts')
  writeFileSync(
    writer,
    `import { openContextStore } from ${JSON.stringify(INDEX)}
const store = openContextStore(process.argv[2])
try { store.append('s', { role: 'user', content: [{ text: 'from the owner' }] }); console.log('written') }
catch (e) { console.log((e as { code?: string }).code); process.exitCode = 1 }
finally { store.close() }
`,
  )
  chmodSync(writer, 0o644)
})
afterAll(() => {
  dir.cleanup()
})

/** A closed ledger owned by the owner (no side files), mode 0644. */
function ownedLedger(name: string): string {
  const file = dir.file(name)
  const store = openContextStore(file)
  store.append('s', [
    { role: 'user', content: [{ text: 'hello' }] },
    { role: 'assistant', content: [{ text: 'hi' }] },
  ])
  store.close()
  if (ownerUid !== undefined) chownSync(file, ownerUid, ownerUid)
  chmodSync(file, 0o644)
  return file
}

const sides = (file: string): string[] => ['-wal', '-shm'].filter((s) => existsSync(file + s))

describe.skipIf(!canSu)('a read command as another user', () => {
  it('leaves no side files when the ledger has none, so its owner can still write', () => {
    const file = ownedLedger('idle.db')
    for (const args of [
      ['sessions', file, '--json'],
      ['window', file, 's', '--explain'],
      ['history', file, 's'],
      ['check', file],
      ['stats', file],
      ['search', file, 'hello'],
    ]) {
      const r = cliAs(READER, args)
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(sides(file), args.join(' ')).toStrictEqual([])
    }
    expect(JSON.parse(cliAs(READER, ['sessions', file, '--json']).stdout)).toMatchObject({
      sessions: [{ id: 's', messageCount: 2 }],
    })
    const w = as(OWNER, `${quote(process.execPath)} --import tsx ${quote(writer)} ${quote(file)}`)
    expect(w.stdout.trim(), w.stderr).toBe('written')
  })

  it('reads through the side files of a live agent of the owner’s, creating nothing', async () => {
    const file = ownedLedger('live.db')
    const holder = dir.file('holder.ts')
    writeFileSync(
      holder,
      `import { openContextStore } from ${JSON.stringify(INDEX)}
const store = openContextStore(process.argv[2])
store.append('s', { role: 'user', content: [{ text: 'in the log' }] })
console.log('ready')
process.stdin.resume()
process.stdin.on('end', () => { store.close() })
`,
    )
    chmodSync(holder, 0o644)
    const agent = spawn(
      'su',
      [
        OWNER,
        '-s',
        '/bin/sh',
        '-c',
        `cd ${quote(ROOT)} && HOME=/tmp exec ${quote(process.execPath)} --import tsx ${quote(holder)} ${quote(file)}`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    )
    await new Promise<void>((resolve) =>
      agent.stdout.once('data', () => {
        resolve()
      }),
    )
    try {
      expect(sides(file)).toStrictEqual(['-wal', '-shm'])
      const r = cliAs(READER, ['sessions', file, '--json'])
      expect(r.status, r.stderr).toBe(0)
      // The message the agent committed to its log is seen.
      expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [{ id: 's', messageCount: 3 }] })
      for (const s of ['-wal', '-shm']) expect(statSync(file + s).uid).toBe(ownerUid)
    } finally {
      agent.stdin.end()
      await new Promise((resolve) => agent.once('exit', resolve))
    }
    const w = as(OWNER, `${quote(process.execPath)} --import tsx ${quote(writer)} ${quote(file)}`)
    expect(w.stdout.trim(), w.stderr).toBe('written')
  })

  it('refuses in one line, creating nothing, when the ledger has a -wal but no -shm', () => {
    const file = ownedLedger('half.db')
    writeFileSync(`${file}-wal`, '')
    if (ownerUid !== undefined) chownSync(`${file}-wal`, ownerUid, ownerUid)
    const r = cliAs(READER, ['window', file, 's'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/belongs to uid \d+, and it has a -wal but no -shm/)
    expect(r.stderr).toContain('Run the command as its owner')
    expect(sides(file)).toStrictEqual(['-wal'])
    const json = cliAs(READER, ['window', file, 's', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'READ_ONLY' } })
  })

  it('as root, SQLite gives the side files it creates to the owner', () => {
    const file = ownedLedger('root.db')
    const r = cliAs('root', ['sessions', file])
    expect(r.status, r.stderr).toBe(0)
    for (const s of sides(file)) expect(statSync(file + s).uid).toBe(ownerUid)
    const w = as(OWNER, `${quote(process.execPath)} --import tsx ${quote(writer)} ${quote(file)}`)
    expect(w.stdout.trim(), w.stderr).toBe('written')
  })
})

describe('reading without locks, in-process (the reader’s uid faked)', () => {
  afterEach(() => {
    vi.restoreAllMocks()
    changedDuringRead()
  })

  it('opens a file another user owns immutable when it has no -wal, shared when it has both side files', () => {
    const file = ownedLedger('access.db')
    const owner = statSync(file).uid
    vi.spyOn(process, 'geteuid').mockReturnValue(owner + 1)
    const env: NodeJS.ProcessEnv = {}
    const access = readAccess(file, env)
    expect(access).toMatchObject({ kind: 'unlocked' })
    expect(access.kind === 'unlocked' ? access.uri : '').toMatch(/^file:\/\/\/.*access\.db\?immutable=1$/)
    expect(env.SQLITE_USE_URI).toBe('1')
    expect(changedDuringRead()).toBeUndefined()
    writeFileSync(`${file}-wal`, '')
    writeFileSync(`${file}-shm`, '')
    expect(readAccess(file, {})).toStrictEqual({ kind: 'shared' })
  })

  it('fails a command whose file changed while it was read without locks', () => {
    const file = ownedLedger('changed.db')
    vi.spyOn(process, 'geteuid').mockReturnValue(statSync(file).uid + 1)
    readAccess(file, {})
    const later = new Date(Date.now() + 5000)
    utimesSync(file, later, later)
    const changed = changedDuringRead()
    expect(changed?.code).toBe('FILE_CHANGED')
    expect(changed?.message).toContain('was written while it was read without locks')
    expect(changedDuringRead()).toBeUndefined()
  })

  it('refuses in one line where SQLite was started without URIs (this process)', async () => {
    const file = ownedLedger('no-uri.db')
    vi.spyOn(process, 'geteuid').mockReturnValue(statSync(file).uid + 1)
    const before = process.env.SQLITE_USE_URI
    try {
      const r = await cli(['sessions', file])
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toContain('Run the command as its owner')
      expect(sides(file)).toStrictEqual([])
    } finally {
      if (before === undefined) delete process.env.SQLITE_USE_URI
      else process.env.SQLITE_USE_URI = before
    }
  })
})
