/**
 * Adversarial, SQLite: a process appending a Claude transcript through `LedgerSessionStore`
 * (workers/claude-agent-appender.ts, TypeScript from src/ through tsx) is killed with SIGKILL in the middle
 * of its batches. What it acknowledged is there whole, the batch in flight is there whole or not at all,
 * nothing else; the SDK's summary is the fold of exactly that; the file passes the window rules; and a
 * replay of the whole transcript (what `importSessionToStore` does from the local file) completes it with
 * every uuid once.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { ClaudeEntries } from '../../bench/claude-agent-fixtures.js'
import { openSessions, type AppenderArgs } from '../helpers/claude-ledger.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRulesOf } from '../helpers/window-rules.js'
import { dedupedByUuid } from '../adapters/claude-agent-sdk/helpers.js'
import { expectSidecarIsFold } from './claude-agent-checks.js'
import { launchTsx, tagged } from './claude-agent-support.js'
import { collect } from './support.js'

const dir = useTempDir('context-ledger-claude-killed-')

describe('a process appending a Claude transcript, killed', () => {
  it('leaves whole batches, the summary their fold, and a replay completes it', async () => {
    const location = join(dir.path, 'killed.db')
    const args: AppenderArgs = {
      location,
      key: { projectKey: '-srv-killed', sessionId: '3f1c2b7a-0000-4000-8000-00000000000c' },
      tag: 7,
      sizes: Array.from({ length: 80 }, (_, i) => 5 + ((i * 11) % 19)),
      resend: [],
    }
    const batches: SessionStoreEntry[][] = (() => {
      const gen = new ClaudeEntries(args.key.sessionId, args.tag)
      return args.sizes.map((n) => gen.next(n))
    })()
    const child = launchTsx('claude-agent-appender', args)
    let acknowledged = 0
    const exit = await collect(child, (line) => {
      if (line === 'ready') child.stdin?.end('go\n')
      if (line.startsWith('sent ') && ++acknowledged === 12) child.kill('SIGKILL')
    })
    expect(exit.signal).toBe('SIGKILL')
    const sent = tagged(exit, 'sent').length
    expect(sent).toBeGreaterThanOrEqual(12)

    const opened = await openSessions(location)
    try {
      const loaded = (await opened.sessions.load(args.key)) ?? []
      // Every acknowledged batch, and the one in flight whole or not at all: nothing else.
      const landed = [sent, sent + 1].filter((m) => m <= batches.length)
      expect(landed.map((m) => batches.slice(0, m).flat())).toContainEqual(loaded)
      await expectSidecarIsFold(opened, args.key)
      await assertWindowRulesOf(opened.ledger, opened.sessions.sessionIdOf(args.key))
      // The replay: every uuid once, the uuid-less entries of what was there again.
      for (const batch of batches) await opened.sessions.append(args.key, batch)
      const after = (await opened.sessions.load(args.key)) ?? []
      expect(after).toStrictEqual(dedupedByUuid([loaded, ...batches]))
      await expectSidecarIsFold(opened, args.key)
    } finally {
      await opened.ledger.close()
    }
  }, 120_000)
})
