/**
 * Cutting a test database off and bringing it back: new connections refused
 * (`ALTER DATABASE … ALLOW_CONNECTIONS false`) and the ones it has ended (`pg_terminate_backend`), then
 * connections allowed again — what a failover or a restart of the server looks like to the store.
 */

import { query } from './server.js'

/** Cuts and restores one database. */
export interface Outage {
  /** Refuses new connections to the database and ends the ones it has. */
  readonly cut: () => Promise<void>
  /** Allows connections again. */
  readonly restore: () => Promise<void>
}

/**
 * The outage of a test database.
 *
 * @param adminUrl - the server's admin connection string
 * @param url - the database's connection string (a test database, `cl_…`)
 * @returns its cut and restore
 */
export function outage(adminUrl: string, url: string): Outage {
  const name = new URL(url).pathname.slice(1)
  if (!/^cl_[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`)
  const admin = async (sql: string): Promise<void> => {
    await query(adminUrl, sql)
  }
  return {
    cut: () =>
      admin(
        `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false; SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
      ),
    restore: () => admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`),
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Terminates every backend of the database every few ms, with a short refusal of connections now and
 * then, until stopped.
 *
 * @param adminUrl - the server's admin connection string
 * @param url - the database's connection string
 * @param seed - the seed of the pauses (a failing run replays from it)
 * @param pace - the pause between cuts: at least `min` ms, and up to `spread` ms more (default 20, 60)
 * @returns `stop`, which ends the storm, allows connections again and says how many cuts there were, and
 *   `kills`, the cuts so far
 */
export function storm(
  adminUrl: string,
  url: string,
  seed: number,
  pace: { readonly min: number; readonly spread: number } = { min: 20, spread: 60 },
): { stop: () => Promise<number>; kills: () => number } {
  const { cut, restore } = outage(adminUrl, url)
  const control = { running: true }
  let kills = 0
  let state = seed
  const rand = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n
  }
  const loop = (async () => {
    while (control.running) {
      await sleep(pace.min + rand(pace.spread))
      await cut()
      kills++
      // Mostly a kill with connections allowed again at once; now and then a longer outage.
      if (rand(5) === 0) await sleep(30 + rand(80))
      await restore()
    }
  })()
  return {
    kills: () => kills,
    stop: async () => {
      control.running = false
      await loop
      await restore()
      return kills
    },
  }
}
