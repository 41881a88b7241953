/**
 * The transcripts of one `LedgerSessionStore` in its ledger: each key's ledger session (its port, opened
 * once and kept while in use), the check that the session under a key's id is this key's transcript (the
 * format `claude-agent`, the key in its sidecar), and the listing of the store's transcripts from the
 * ledger's session list — by the sidecars, never by parsing ids.
 */
import { ContextLedgerError } from '../../errors.js'
import { formatMismatch } from '../../store/append-format.js'
import type { SessionSummary } from '../../store/store-types.js'
import { openPort, type LedgerPort } from '../port.js'
import type { AdapterStore } from '../session-options.js'
import { ledgerIdOf, sameKey, type CheckedKey } from './keys.js'
import { readSidecar, type ClaudeAgentSidecar } from './sidecar.js'
import type { StoreCalls } from './store-calls.js'

/** The message format of the transcripts' ledger sessions. */
export const CLAUDE_AGENT_FORMAT = 'claude-agent'

/** Ports kept open at most; the least recently used is let go past it. */
const OPEN_MAX = 256

/** One key's ledger session. */
export interface Transcript {
  /** The ledger session id. */
  readonly id: string
  /** The key. */
  readonly key: CheckedKey
  /** Its session's calls. */
  readonly port: LedgerPort
  /** Whether the session was found to be this key's transcript (then it is not read again). */
  verified: boolean
  /**
   * Whether the session was found to be a root (no fork: a root never becomes a branch, so an append to it
   * need not look for entries a parent shows); undefined until it was read.
   */
  root?: boolean
}

/** A transcript of the store, as the ledger's session list shows it. */
export interface ListedTranscript {
  /** The ledger session id. */
  readonly id: string
  /** Its sidecar (the key's parts, the summary of a main transcript). */
  readonly sidecar: ClaudeAgentSidecar
  /** The ledger's summary of the session. */
  readonly session: SessionSummary
}

/** Every transcript of one store. */
export class Transcripts {
  private readonly open = new Map<string, Transcript>()
  private readonly byId = new Map<string, LedgerPort>()

  /**
   * @param store - the ledger
   * @param calls - its store-wide calls
   * @param prefix - the store's prefix of ledger ids
   */
  constructor(
    private readonly store: AdapterStore,
    private readonly calls: StoreCalls,
    private readonly prefix: string,
  ) {}

  /**
   * The ledger session id of a key.
   *
   * @param key - a checked key
   * @returns its id
   */
  idOf(key: CheckedKey): string {
    return ledgerIdOf(this.prefix, key)
  }

  /**
   * A key's ledger session (opened on first use).
   *
   * @param key - a checked key
   * @returns its transcript
   */
  of(key: CheckedKey): Transcript {
    const id = this.idOf(key)
    let transcript = this.open.get(id)
    if (transcript !== undefined) this.open.delete(id)
    else {
      const { port } = openPort(this.store, { sessionId: id, format: CLAUDE_AGENT_FORMAT })
      transcript = { id, key, port, verified: false }
    }
    this.open.set(id, transcript)
    for (const old of this.open.keys()) {
      if (this.open.size <= OPEN_MAX) break
      this.open.delete(old)
    }
    return transcript
  }

  /**
   * The calls of any ledger session of the transcripts' format, by id: a fork's parent, an abandoned
   * branch.
   *
   * @param id - the ledger session id
   * @returns its port
   */
  portOf(id: string): LedgerPort {
    const transcript = this.open.get(id)
    if (transcript !== undefined) return transcript.port
    let port = this.byId.get(id)
    if (port !== undefined) this.byId.delete(id)
    else port = openPort(this.store, { sessionId: id, format: CLAUDE_AGENT_FORMAT }).port
    this.byId.set(id, port)
    for (const old of this.byId.keys()) {
      if (this.byId.size <= OPEN_MAX) break
      this.byId.delete(old)
    }
    return port
  }

  /** Forgets what is known of a deleted session: its id may next hold something else. */
  forget(id: string): void {
    this.open.delete(id)
    this.byId.delete(id)
  }

  /**
   * Whether the key's session exists, refusing a session under its id that is not its transcript.
   *
   * @param transcript - the key's transcript
   * @returns true when the session exists
   * @throws ContextLedgerError `FORMAT_MISMATCH` (a session of another format holds the id),
   *   `INVALID_OPTIONS` at `key` (the transcript of another key holds it)
   */
  async exists(transcript: Transcript): Promise<boolean> {
    if (transcript.verified) return true
    const session = await this.calls.session(transcript.id)
    if (session === undefined) return false
    if (session.format !== CLAUDE_AGENT_FORMAT)
      throw formatMismatch(transcript.id, session.format, CLAUDE_AGENT_FORMAT)
    const sidecar = readSidecar(session.metadata)
    if (sidecar !== undefined && !sameKey(sidecar, transcript.key))
      throw new ContextLedgerError(
        'INVALID_OPTIONS',
        `Ledger session "${transcript.id}" holds the transcript of another key (project ${JSON.stringify(sidecar.projectKey)}, session ${JSON.stringify(sidecar.sessionId)}); use a prefix to keep them apart`,
        { path: 'key', sessionId: transcript.id },
      )
    transcript.verified = true
    transcript.root = session.parentId === null
    return true
  }

  /**
   * The store's transcripts in the ledger that `keep` accepts.
   *
   * @param keep - which keys to list
   * @returns them, in the ledger's session order
   */
  async list(keep: (key: CheckedKey) => boolean): Promise<ListedTranscript[]> {
    const found: ListedTranscript[] = []
    for (const session of await this.calls.sessions()) {
      if (session.format !== CLAUDE_AGENT_FORMAT) continue
      const sidecar = readSidecar(session.metadata)
      // Another store's (another prefix), or a session under an id of no key: not this store's.
      if (sidecar === undefined || this.idOf(sidecar) !== session.id || !keep(sidecar)) continue
      found.push({ id: session.id, sidecar, session })
    }
    return found
  }
}
