/**
 * The project key the Claude Agent SDK gives a folder by default: what `query()` uses for its `cwd`, and
 * every session function for its `dir`, when no project key is configured. The folder's real path with
 * every character but an ASCII letter or digit replaced by `-`; past 200 characters, the first 200, a
 * `-` and a hash of the path in base 36 (the SDK's `(h << 5) - h + code` string hash, as in sdk.mjs).
 */
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'

/** Characters of a project key before the SDK cuts it and adds a hash. */
const KEY_MAX = 200

function pathHash(path: string): string {
  let h = 0
  for (let i = 0; i < path.length; i++) h = ((h << 5) - h + path.charCodeAt(i)) | 0
  return Math.abs(h).toString(36)
}

function realPath(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return resolve(dir) // A folder that does not exist (any more) keeps its absolute path.
  }
}

/**
 * The SDK's default project key for a folder, so a caller can name a `query()` run's transcript:
 * `sessionStore.sessionIdOf({ projectKey: projectKeyOf(process.cwd()), sessionId })`.
 *
 * @param dir - the folder (`query()`'s `cwd`, default `process.cwd()`)
 * @returns the key, e.g. `-home-me-app` for `/home/me/app`
 */
export function projectKeyOf(dir: string = process.cwd()): string {
  const path = realPath(dir)
  const key = path.replace(/[^a-zA-Z0-9]/g, '-')
  return key.length <= KEY_MAX ? key : `${key.slice(0, KEY_MAX)}-${pathHash(path)}`
}
