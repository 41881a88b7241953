/**
 * The order `import` writes the sessions of its input in, and the ids it writes them under: a branch
 * after its parent, which is a session of the same input or of the file (docs/cli.md, "import"). `--as`
 * renames the input's first session; a branch of it names it by its new id. Refused before anything is
 * written, naming the session at fault: a parent chain that loops (`BRANCH_CYCLE`), a parent that is
 * neither in the input nor in the file (`INVALID_OPTIONS`), and one id twice in the input.
 */
import { CliError } from './errors.js'
import type { Parsed } from './import-parse.js'

/** A session of the input, as it will be written. */
export interface Planned {
  /** The session's lines. */
  readonly parsed: Parsed
  /** The id it is written under. */
  readonly id: string
  /** Its parent's id (after renaming), or undefined for a root. */
  readonly parentId: string | undefined
}

/** Shortens an id for a message. */
function quoted(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id)
}

/**
 * Orders the input's sessions so that each comes after its parent.
 *
 * @param blocks - the input's sessions, in the order they came
 * @param as - the id the first one is written under (`--as`), if given
 * @param inFile - whether the file holds a session of that id
 * @returns the sessions to write, parents first
 * @throws CliError `BRANCH_CYCLE`, `INVALID_OPTIONS` or `INVALID_EXPORT` naming the session
 */
export function planImport(
  blocks: readonly Parsed[],
  as: string | undefined,
  inFile: (id: string) => boolean,
): Planned[] {
  const first = blocks[0]?.header.session.id
  const rename = (id: string): string => (as !== undefined && id === first ? as : id)
  const byId = new Map<string, Planned>()
  for (const parsed of blocks) {
    const session = parsed.header.session
    const id = rename(session.id)
    if (byId.has(id))
      throw new CliError(
        `line ${parsed.headerLine}: session ${quoted(id)} appears twice in the input; nothing was imported`,
        'INVALID_EXPORT',
      )
    const parent = session.branch?.parent
    byId.set(id, { parsed, id, parentId: parent === undefined ? undefined : rename(parent) })
  }
  const ordered: Planned[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (p: Planned, path: readonly string[]): void => {
    if (state.get(p.id) === 'done') return
    if (state.get(p.id) === 'visiting') {
      const loop = [...path.slice(path.indexOf(p.id)), p.id].map(quoted).join(' → ')
      throw new CliError(
        `session ${quoted(p.id)}: its parents make a cycle (${loop}); nothing was imported`,
        'BRANCH_CYCLE',
      )
    }
    state.set(p.id, 'visiting')
    if (p.parentId !== undefined) {
      const parent = byId.get(p.parentId)
      if (parent !== undefined) visit(parent, [...path, p.id])
      else if (!inFile(p.parentId))
        throw new CliError(
          `session ${quoted(p.id)} (line ${p.parsed.headerLine}) is a branch of ${quoted(p.parentId)}, which is neither in the input nor in the file; import its parent first (export --tree from the root carries the whole tree); nothing was imported`,
          'INVALID_OPTIONS',
        )
    }
    state.set(p.id, 'done')
    ordered.push(p)
  }
  for (const p of byId.values()) visit(p, [])
  return ordered
}
