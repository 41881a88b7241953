/**
 * The three ways into a project, each from a fresh consumer in a temp dir: the `npm pack` tarball, a git
 * dependency (npm clones, installs our devDependencies and runs `prepare`, which builds `dist/`), and a
 * local path dependency on a checkout with its dependencies installed (installed as links are packed:
 * npm runs the checkout's `prepare`, which builds `dist/`). Each consumer runs both entries as an ES module
 * and through `require()`, and the tarball's is typechecked under `nodenext` and `bundler`.
 *
 * Slow (installs, two minutes or more here): part of the package project, not the unit tests.
 */
import { existsSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir, type TempDir } from '../helpers/temp-store.js'
import { TYPECHECKS, writeConsumer, type ConsumerReport } from './consumer-files.js'
import {
  commitAll,
  copyWorkingTree,
  localPrebuild,
  npmEnv,
  pack,
  repoRoot,
  run,
  runTool,
  type Output,
} from './workspace.js'

const SETUP_MS = 120_000
const INSTALL_MS = 900_000

type Way = 'tarball' | 'git' | 'path'

let temp: TempDir
/** The checkout: the working tree, committed, with the repository's dependencies. */
let checkout: string
let env: NodeJS.ProcessEnv
const installs = new Map<Way, Promise<string>>()

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort()
}

/** Migrations the installed package ships, by its own journal. */
function shippedMigrations(consumer: string): number {
  const journal = JSON.parse(
    readFileSync(join(consumer, 'node_modules/context-ledger/migrations/meta/_journal.json'), 'utf8'),
  ) as { entries: unknown[] }
  return journal.entries.length
}

/** Marks a promise that a test awaits later, so a failure until then does not count as unhandled. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** Installs `spec` into a new consumer; resolves to the consumer's directory. */
async function install(way: Way, spec: string, flags: readonly string[] = []): Promise<string> {
  const consumer = join(temp.path, `consumer-${way}`)
  await run('npm', [...writeConsumer(consumer, spec), ...flags], { cwd: consumer, env })
  return consumer
}

// The git install runs beside the other two; each test awaits what it needs.
beforeAll(async () => {
  temp = tempDir('context-ledger-package-')
  checkout = join(temp.path, 'context-ledger')
  await copyWorkingTree(checkout)
  await commitAll(checkout)
  env = npmEnv(await localPrebuild(join(temp.path, 'prebuilds')))
  // npm clones the commit (no dist/, no node_modules/), installs our devDependencies in the clone and
  // runs prepare there.
  installs.set('git', later(install('git', `git+file://${checkout}`)))
  // A checkout whose dependencies are installed: this repository's own, from the same lockfile, linked —
  // a second full install beside the git install's took ~130 s of the file's ~260 s on two cores.
  symlinkSync(join(repoRoot, 'node_modules'), join(checkout, 'node_modules'), 'dir')
  // Linked (npm's default for a path), the checkout would resolve the Strands SDK from its own
  // node_modules: a second copy, whose hooks the consumer's Agent never calls. Installed as links are
  // packed, it resolves the consumer's copy (docs/install.md); npm runs the checkout's prepare to pack
  // it, which builds its dist/.
  const path = later(install('path', checkout, ['--install-links']))
  installs.set('path', path)
  // The tarball: that checkout, built by its own prepare, packed as npm publish would.
  installs.set(
    'tarball',
    later(path.then(async () => install('tarball', (await pack(checkout, temp.path, env)).tarball))),
  )
}, SETUP_MS)

// Removing three installs takes a while on a busy machine.
afterAll(async () => {
  await Promise.allSettled(installs.values())
  await rm(temp.path, { recursive: true, force: true })
}, INSTALL_MS)

function consumerOf(way: Way): Promise<string> {
  const consumer = installs.get(way)
  if (consumer === undefined) throw new Error(`no install for ${way}`)
  return consumer
}

describe('a checkout', () => {
  it(
    'builds dist/ through prepare when installed by path, and imports itself by name',
    async () => {
      await consumerOf('path')
      expect(existsSync(join(checkout, 'dist/index.js'))).toBe(true)
      const script = `import { openContextStore } from 'context-ledger'
      const store = openContextStore(':memory:')
      store.append('s', [{ role: 'user', content: [{ text: 'self' }] }])
      console.log(JSON.stringify(store.window('s').map((m) => m.content[0].text)))`
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: checkout })
      expect(JSON.parse(stdout)).toStrictEqual(['self'])
    },
    INSTALL_MS,
  )
})

describe('installed from the tarball', () => {
  it(
    'runs the command line: npx context-ledger --help, and sessions of a new ledger',
    async () => {
      const consumer = await consumerOf('tarball')
      const help = await run('npx', ['--no-install', 'context-ledger', '--help'], { cwd: consumer, env })
      expect(help.stdout).toContain('Usage: context-ledger')
      expect(help.stdout).toContain('window [options] <file> <session>')
      const make = `import { openContextStore } from 'context-ledger'
      const store = openContextStore('cli.db')
      store.append('s', [{ role: 'user', content: [{ text: 'hello' }] }])
      store.close()`
      await run(process.execPath, ['--input-type=module', '-e', make], { cwd: consumer })
      const { stdout } = await run(
        'npx',
        ['--no-install', 'context-ledger', 'sessions', 'cli.db', '--json'],
        {
          cwd: consumer,
          env,
        },
      )
      expect(JSON.parse(stdout)).toMatchObject({ sessions: [{ id: 's', messageCount: 1 }] })
    },
    INSTALL_MS,
  )

  it.each(Object.keys(TYPECHECKS))(
    'typechecks a consumer with skipLibCheck: false under %s',
    async (config) => {
      const consumer = await consumerOf('tarball')
      await runTool('typescript', 'bin/tsc', ['-p', `tsconfig.${config}.json`], consumer)
    },
    INSTALL_MS,
  )
})

describe.each<Way>(['tarball', 'git', 'path'])('installed from %s', (way) => {
  it(
    'runs both entries as an ES module: a new file migrated from the installed package, a real agent',
    async () => {
      const consumer = await consumerOf(way)
      const { stdout }: Output = await run(process.execPath, ['esm.mjs'], { cwd: consumer })
      expect(JSON.parse(stdout)).toStrictEqual({
        core: ['c'],
        agent: ['user:hello', 'assistant:noted'],
        userVersion: shippedMigrations(consumer),
      } satisfies ConsumerReport)
      expect(shippedMigrations(consumer)).toBeGreaterThan(0)
    },
    INSTALL_MS,
  )

  it('runs both entries through require() from CommonJS', async () => {
    const consumer = await consumerOf(way)
    const { stdout } = await run(process.execPath, ['require.cjs'], { cwd: consumer })
    expect(JSON.parse(stdout)).toStrictEqual({ window: ['from require'], refused: 'INVALID_MESSAGE' })
  })
})

describe.each<Way>(['git', 'path'])('installed from %s', (way) => {
  it(
    'holds exactly the tarball’s files, so the tarball’s typechecks cover it',
    async () => {
      const installed = join(await consumerOf(way), 'node_modules/context-ledger')
      const fromTarball = join(await consumerOf('tarball'), 'node_modules/context-ledger')
      expect(lstatSync(installed).isSymbolicLink()).toBe(false)
      const files = filesUnder(fromTarball)
      expect(filesUnder(installed)).toStrictEqual(files)
      const differing = files.filter(
        (f) => !readFileSync(join(installed, f)).equals(readFileSync(join(fromTarball, f))),
      )
      expect(differing).toStrictEqual([])
    },
    INSTALL_MS,
  )
})
