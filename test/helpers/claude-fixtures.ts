/**
 * The transcripts recorded from the real Claude Code CLI (test/fixtures/claude-agent/cli-*.json, made by
 * test/fixtures/claude-agent/record.ts): every batch the SDK handed its session store, in order, with
 * its key, and the reads it made.
 */
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { keyString, type RecordedAppend, type RecordedRead } from './claude-recording-store.js'

/** A recorded scenario (the JSON of one `cli-<scenario>.json`). */
export interface Fixture {
  /** The scenario's name (the file is `cli-<scenario>.json`). */
  readonly scenario: string
  /** What the scenario does. */
  readonly description: string
  /** The SDK and the Claude Code CLI it was recorded with. */
  readonly recordedWith: { readonly sdk: string; readonly claudeCode: string }
  /** The project key the SDK derived from the run's folder. */
  readonly projectKey: string
  /** The main session's id. */
  readonly sessionId: string
  /** How many Messages requests the CLI made. */
  readonly modelRequests: number
  /** Every `append`, in order (main transcript and subkeys). */
  readonly appends: readonly RecordedAppend[]
  /** Every other store call, in order. */
  readonly reads: readonly RecordedRead[]
}

/** The fixtures folder. */
export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-agent')

/** The recorded scenarios' names. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => /^cli-.+\.json$/.test(f))
    .map((f) => f.slice('cli-'.length, -'.json'.length))
    .sort()
}

/**
 * Reads one recorded scenario.
 *
 * @param scenario - e.g. `tool-call`, `parallel-tool-calls`, `subagent`
 * @returns the fixture
 */
export function readFixture(scenario: string): Fixture {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, `cli-${scenario}.json`), 'utf8')) as Fixture
}

/** The main key of a fixture. */
export const mainKey = (f: Fixture): SessionKey => ({ projectKey: f.projectKey, sessionId: f.sessionId })

/**
 * One key's transcript, as `load` returns it: its batches concatenated.
 *
 * @param f - the fixture
 * @param subpath - a subagent's subpath; the main transcript when absent
 * @returns the entries
 */
export function transcriptOf(f: Fixture, subpath?: string): SessionStoreEntry[] {
  const key = keyString({ ...mainKey(f), ...(subpath === undefined ? {} : { subpath }) })
  return f.appends.filter((a) => keyString(a.key) === key).flatMap((a) => a.entries)
}

/** The subpaths a fixture's appends used, in first-use order. */
export function subpathsOf(f: Fixture): string[] {
  return [...new Set(f.appends.flatMap((a) => (a.key.subpath === undefined ? [] : [a.key.subpath])))]
}
