/**
 * Two Strands agents writing one session, in two processes. Their tool rounds interleave in the file:
 * one agent's prompt lands while the other's tool runs, so the store answers the open call with a repair
 * row, and the real result arrives late. Every invocation must succeed, every prompt and result must be
 * archived, and every conversation a model is handed must be valid for a provider.
 */
import { describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { useTempDir } from '../helpers/temp-store.js'
import { assertWindowRules, readHistory } from '../helpers/window-rules.js'
import { collect, useWorker } from './support.js'

const dir = useTempDir('context-ledger-rel-')
const launch = useWorker('shared-agent')
const TURNS = 60

describe('a session shared by two Strands agents in two processes', () => {
  it('stores every prompt and result, fails no turn, and hands every model a valid conversation', async () => {
    const path = dir.file('shared.db')
    openContextStore(path).close()
    const runs = await Promise.all(
      ['alpha', 'beta'].map((name, i) =>
        collect(launch([path, 'shared', name, String(TURNS), String(7 + i)])),
      ),
    )
    for (const run of runs) {
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.lines.filter((l) => !l.startsWith('ok '))).toStrictEqual(['done'])
    }
    const store = openContextStore(path)
    try {
      const history = readHistory(store, 'shared')
      const texts = history.flatMap((e) =>
        e.message.content.flatMap((b) =>
          'text' in b
            ? [b.text]
            : 'toolResult' in b
              ? b.toolResult.content.map((c) => ('text' in c ? c.text : ''))
              : [],
        ),
      )
      for (const name of ['alpha', 'beta'])
        for (let t = 0; t < TURNS; t++) {
          expect(texts).toContain(`${name} prompt ${t}`)
          expect(texts).toContain(`${name}-${t}: found`)
        }
      console.log(
        'late',
        history.filter((e) => e.late).length,
        'repairs',
        history.filter((e) => e.message.metadata?.custom?.contextLedger !== undefined).length,
        history.length,
      )
      assertWindowRules(store, 'shared')
    } finally {
      store.close()
    }
  })
})
