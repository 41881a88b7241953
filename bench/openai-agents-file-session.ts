/**
 * The file-backed `Session` the OpenAI Agents SDK's examples show (openai/openai-agents-js,
 * `examples/memory/sessions/file.ts`, `FileSession`), written again here for bench/openai-agents.ts with
 * the same work per call: the session's id checked against its directory and file (`mkdir`, `access`) on
 * every call; `getItems` reads the whole JSON file, parses it and runs each item through the SDK's
 * `protocol.ModelItem` schema; `addItems` reads and parses the whole file, runs the new items through the
 * schema and a JSON round trip, and rewrites the whole list pretty-printed (`JSON.stringify(items, null,
 * 2)`, `fs/promises` `writeFile`). `popItem` and `clearSession` are as the example's, for completeness;
 * the bench calls only `addItems` and `getItems`.
 */
import { access, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { protocol, type AgentInputItem, type Session } from '@openai/agents'

/** An item the SDK's schema accepts, as it parsed it; undefined for anything else (skipped, as the example does). */
function coerce(raw: unknown): AgentInputItem | undefined {
  const parsed = protocol.ModelItem.safeParse(raw)
  return parsed.success ? parsed.data : undefined
}

/** The whole item list in one JSON file, rewritten on every change. */
export class FileSession implements Session {
  /**
   * @param dir - the directory of session files
   * @param sessionId - the session's id: its file is `<dir>/<sessionId>.json`
   */
  constructor(
    private readonly dir: string,
    private readonly sessionId: string,
  ) {}

  /** The id, after making sure its directory and file exist (an empty list when new). */
  async getSessionId(): Promise<string> {
    await mkdir(this.dir, { recursive: true })
    try {
      await access(this.file())
    } catch {
      await writeFile(this.file(), '[]', 'utf8')
    }
    return this.sessionId
  }

  /** Every item (or the newest `limit`), each checked by the SDK's schema. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    await this.getSessionId()
    const items = (await this.readRaw()).flatMap((raw) => coerce(raw) ?? [])
    return typeof limit === 'number' && limit >= 0 ? items.slice(-limit) : items
  }

  /** Reads the whole list, appends the new items (checked, copied) and writes the whole list back. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return
    await this.getSessionId()
    const current = await this.readRaw()
    const added = items.flatMap((item) => {
      const parsed = coerce(item)
      return parsed === undefined ? [] : [JSON.parse(JSON.stringify(parsed)) as unknown]
    })
    await this.write(current.concat(added))
  }

  /** Removes the newest item the schema accepts and rewrites the file. */
  async popItem(): Promise<AgentInputItem | undefined> {
    await this.getSessionId()
    const items = await this.readRaw()
    while (items.length > 0) {
      const item = coerce(items.pop())
      if (item !== undefined) {
        await this.write(items)
        return item
      }
    }
    await this.write(items)
    return undefined
  }

  /** Deletes the file. */
  async clearSession(): Promise<void> {
    await unlink(this.file()).catch(() => undefined)
  }

  /**
   * Writes a whole list as the session's file (as `addItems` does), e.g. a history before a bench.
   *
   * @param items - the list
   */
  async write(items: readonly unknown[]): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    await writeFile(this.file(), JSON.stringify(items, null, 2), 'utf8')
  }

  private file(): string {
    return join(this.dir, `${this.sessionId}.json`)
  }

  private async readRaw(): Promise<unknown[]> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file(), 'utf8'))
      return Array.isArray(parsed) ? (parsed as unknown[]) : []
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
  }
}
