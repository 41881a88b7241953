/**
 * The server the PostgreSQL benches run on (bench/postgres.ts, bench/postgres-search.ts): `--url`'s, or
 * an embedded one started for the run and stopped after it.
 */
import { startServer, type TestServer } from '../test/postgres/server.js'

/**
 * Takes `--url <connection string>` out of a bench's arguments.
 *
 * @param argv - the arguments
 * @returns the URL (undefined without `--url`) and the other arguments
 */
export function takeUrl(argv: readonly string[]): { url: string | undefined; rest: string[] } {
  const at = argv.indexOf('--url')
  return {
    url: at >= 0 ? argv[at + 1] : undefined,
    rest: argv.filter((a, i) => at < 0 || (i !== at && i !== at + 1)),
  }
}

/**
 * Runs `fn` with a server's admin URL: `url`, or an embedded server's, started now and stopped after.
 *
 * @param url - a server given with `--url`, if any
 * @param fn - the bench
 * @returns what `fn` returned
 */
export async function withBenchServer<T>(
  url: string | undefined,
  fn: (admin: string) => Promise<T>,
): Promise<T> {
  let server: TestServer | undefined
  try {
    if (url === undefined) {
      process.stderr.write('starting an embedded PostgreSQL server...\n')
      server = await startServer()
    }
    return await fn(url ?? (server as TestServer).url)
  } finally {
    await server?.stop()
  }
}
