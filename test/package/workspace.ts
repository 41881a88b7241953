/**
 * The package as people outside this repository get it. Everything happens in temp directories: a copy
 * of the working tree (tracked files plus untracked ones git does not ignore, so uncommitted changes are
 * tested too) is committed to a fresh git repository there, built there and packed from there. The
 * repository's own `dist/` and `node_modules/` are only read.
 *
 * Installing the package into a consumer installs better-sqlite3, whose install script downloads a
 * prebuilt addon or compiles SQLite (about a minute per install, and this machine cannot reach the
 * download). {@link localPrebuild} packs the addon this checkout already built in the layout of such a
 * download, and {@link npmEnv} points better-sqlite3's installer at it (prebuild-install's documented
 * `local-prebuilds` setting), so each consumer runs the real install script and loads a real addon
 * without compiling it again.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository this test runs from. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** What a finished child process printed. */
export interface Output {
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a command to completion without blocking the test process (installs run side by side).
 *
 * @param command - the executable
 * @param args - its arguments
 * @param options - working directory and environment (default: this process's)
 * @returns what it printed; rejects, with the command and its output, when it exits non-zero
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Output> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', fail)
    child.on('close', (code) => {
      if (code === 0) done({ stdout, stderr })
      else
        fail(
          new Error(
            `${command} ${args.join(' ')} (in ${options.cwd}) exited with ${code ?? 'a signal'}\n` +
              `--- stdout\n${stdout.slice(-8000)}\n--- stderr\n${stderr.slice(-8000)}`,
          ),
        )
    })
  })
}

/**
 * Runs a Node script of one of this repository's dev tools (TypeScript, publint, attw) by absolute path.
 *
 * @param pkg - the dev dependency
 * @param bin - the path of its script inside the package
 * @param args - arguments
 * @param cwd - working directory
 * @returns what it printed
 */
export function runTool(pkg: string, bin: string, args: readonly string[], cwd: string): Promise<Output> {
  return run(process.execPath, [join(repoRoot, 'node_modules', pkg, bin), ...args], { cwd })
}

/**
 * Copies the working tree (tracked files and untracked, unignored ones) into `into`, so `dist/`,
 * `node_modules/` and local databases stay behind, as in a fresh clone.
 *
 * @param into - an empty directory
 */
export async function copyWorkingTree(into: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
  })
  const files = new Set(stdout.split('\0').filter((f) => f !== ''))
  const { stdout: deleted } = await run('git', ['ls-files', '-z', '--deleted'], { cwd: repoRoot })
  for (const gone of deleted.split('\0')) files.delete(gone)
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true })
    cpSync(join(repoRoot, file), join(into, file))
  }
}

/**
 * Makes `dir` a git repository with one commit holding its files (what `git clone` of the branch gives).
 *
 * @param dir - a directory from {@link copyWorkingTree}
 */
export async function commitAll(dir: string): Promise<void> {
  const git = (...args: string[]): Promise<Output> =>
    run('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir })
  await git('init', '--quiet')
  await git('add', '--all')
  await git('commit', '--quiet', '--no-gpg-sign', '--message', 'snapshot of the working tree')
}

/**
 * Builds the working tree's sources into `<dir>/dist` with the repository's own build settings.
 *
 * @param dir - the package directory to build into
 */
export async function buildInto(dir: string): Promise<void> {
  await runTool(
    'typescript',
    'bin/tsc',
    ['-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')],
    repoRoot,
  )
}

/** One file of `npm pack --json`'s report. */
export interface PackedFile {
  readonly path: string
  readonly size: number
}

/**
 * Packs a built package directory as `npm publish` would, without running its scripts again.
 *
 * @param dir - the package directory (with `dist/` built)
 * @param destination - where the tarball goes
 * @param env - the environment for npm (see {@link npmEnv})
 * @returns the tarball's path and its file list
 */
export async function pack(
  dir: string,
  destination: string,
  env: NodeJS.ProcessEnv,
): Promise<{ tarball: string; files: PackedFile[]; size: number }> {
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
    { cwd: dir, env },
  )
  const [report] = JSON.parse(stdout) as { filename: string; files: PackedFile[]; size: number }[]
  if (report === undefined) throw new Error(`npm pack printed no report: ${stdout}`)
  return { tarball: join(destination, report.filename), files: report.files, size: report.size }
}

/** The version of a package installed in this repository. */
export function installedVersion(pkg: string): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as {
    version: string
  }
  return manifest.version
}

/**
 * Packs the better-sqlite3 addon this checkout built as the prebuilt download its installer looks for.
 *
 * @param dir - a directory to hold the archive
 * @returns the directory, for {@link npmEnv}
 */
export async function localPrebuild(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true })
  // prebuild-install names archives `{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}`, with
  // libc empty on glibc (the only Linux libc whose report names a glibc version).
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header
  const libc = process.platform === 'linux' && header?.glibcVersionRuntime === undefined ? 'musl' : ''
  const name = `better-sqlite3-v${installedVersion('better-sqlite3')}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`
  await run(
    'tar',
    [
      '-czf',
      join(dir, name),
      '-C',
      join(repoRoot, 'node_modules/better-sqlite3'),
      'build/Release/better_sqlite3.node',
    ],
    {
      cwd: dir,
    },
  )
  return dir
}

/**
 * The environment for npm in a temp project: this process's, minus what an enclosing `npm test` sets to
 * describe this repository (`npm_config_local_prefix` would make the inner npm install into it), plus
 * the local prebuild. Packages come from the npm cache `npm ci` filled; the registry is asked only for
 * what is missing.
 *
 * @param prebuilds - the directory from {@link localPrebuild}, for commands that install
 * @returns the environment
 */
export function npmEnv(prebuilds?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env))
    if (!/^(npm_(package|lifecycle)_|npm_command$|npm_config_local_prefix$|INIT_CWD$)/i.test(key))
      env[key] = value
  if (prebuilds !== undefined) env.npm_config_better_sqlite3_local_prebuilds = prebuilds
  return {
    ...env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
}
