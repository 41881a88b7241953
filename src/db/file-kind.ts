/** What kind of file a path names, asked without following or failing. */
import { lstatSync } from 'node:fs'

/**
 * Whether `path` is a symbolic link (`existsSync` follows links: a dangling one does not exist).
 *
 * @param path - any path
 * @returns true for a link, dangling or not; false for anything else or nothing
 */
export function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}
