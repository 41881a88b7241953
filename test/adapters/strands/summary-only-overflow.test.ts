/**
 * The guard against repeated summary-only overflow folds, on either backend (a conformance-suite file):
 * when the only part of the window a fold by ratio may take is the summary the previous overflow fold
 * just made, the window keeps its length, and Strands' `SummarizingConversationManager` folds and asks
 * the model again forever. `PersistentConversationManager` with `summarize` folds the summary alone once
 * (the window may still fit: the new summary can be shorter), then refuses a second such fold and lets
 * the overflow be raised. A real `Agent`, the scripted main model of the parity tests (it refuses more
 * than a number of messages, and gives up after {@link OVERFLOW_LOOP_LIMIT} overflows in one invocation)
 * and the scripted summarizer.
 */
import { Agent, ContextWindowOverflowError, SummarizingConversationManager } from '@strands-agents/sdk'
import { afterAll, describe, expect, it } from 'vitest'
import {
  PersistentConversationManager,
  type PersistentConversationManagerOptions,
} from '../../../src/adapters/strands/index.js'
import type { PostgresContextStore } from '../../../src/backends/postgres/index.js'
import type { ContextStore } from '../../../src/index.js'
import { BACKEND, makeBackend } from '../../helpers/backend.js'
import { sqliteOf, type LedgerStore } from '../../helpers/ledger-open.js'
import { recordingLogger } from './helpers.js'
import { MainModel, OVERFLOW_LOOP_LIMIT, SummarizerModel } from './summary-models.js'

const backend = makeBackend()
afterAll(async () => {
  await backend.cleanup()
})

/** The store the Strands adapter takes: SQLite's own store, or the PostgreSQL store. */
function adapterStore(store: LedgerStore): ContextStore | PostgresContextStore {
  return sqliteOf(store)?.store ?? (store as PostgresContextStore)
}

// Ten messages fit; a fold by ratio 0.1 keeping the 10 newest takes one message: the oldest, and then
// only the summary standing for it.
const SETTINGS = { summaryRatio: 0.1, preserveRecentMessages: 10 }
const FITS = { messages: 10, chars: 1_000_000 }
const PROMPTS = ['say 1', 'say 2', 'say 3', 'say 4', 'say 5']

describe(`repeated summary-only overflow folds [${BACKEND}]`, () => {
  it('folds the summary alone once, then raises the overflow instead of folding it again (Strands loops)', async () => {
    // Strands' own manager on the same conversation: it folds its summary alone again and again.
    const strandsMain = new MainModel(FITS)
    const strands = new Agent({
      model: strandsMain,
      printer: false,
      conversationManager: new SummarizingConversationManager({
        model: new SummarizerModel(),
        ...SETTINGS,
      }),
    })
    for (const prompt of PROMPTS) await strands.invoke(prompt)
    strandsMain.startInvocation()
    await expect(strands.invoke('say 6')).rejects.toThrow(
      `${OVERFLOW_LOOP_LIMIT} overflows in one invocation`,
    )

    const store = adapterStore(await backend.open())
    const logger = recordingLogger()
    const main = new MainModel(FITS)
    const summarizer = new SummarizerModel()
    const options = {
      store,
      sessionId: 'summary-only',
      logger,
      summarize: { model: summarizer, ...SETTINGS },
    } as PersistentConversationManagerOptions<ContextStore | PostgresContextStore>
    const manager = new PersistentConversationManager(options)
    const agent = new Agent({ model: main, printer: false, conversationManager: manager })
    for (const prompt of PROMPTS) {
      main.startInvocation()
      await agent.invoke(prompt)
    }
    expect(agent.messages).toHaveLength(10)
    expect(main.log.filter((c) => c.overflow)).toHaveLength(0)

    main.startInvocation()
    const failure = await agent.invoke('say 6').then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(ContextWindowOverflowError)
    // Overflow 1 folds the oldest message; overflow 2 folds that summary alone (it might have fit);
    // overflow 3 would fold the new summary alone again: refused, and raised.
    expect(main.log.filter((c) => c.overflow)).toHaveLength(3)
    expect(summarizer.log).toHaveLength(2)
    const refusals = logger.lines.filter(
      (l) =>
        l.level === 'warn' &&
        l.text.includes('the only part of the window a summary may take is the summary itself'),
    )
    expect(refusals).toHaveLength(1)
    const ledger = manager.ledger as { summaries(o?: { limit?: number }): unknown }
    const summaries = (await ledger.summaries({ limit: 10 })) as { messageCount: number }[]
    // Newest first: the summary-only fold (no message of its own), then the first fold.
    expect(summaries.map((x) => x.messageCount)).toStrictEqual([0, 1])
    // The window is the summary and the ten newest messages: nothing was lost, the agent shows it.
    expect(agent.messages).toHaveLength(11)

    // Once the model accepts its input again, a summary-only fold may help once more.
    main.threshold = { messages: 20, chars: 1_000_000 }
    main.startInvocation()
    await agent.invoke('say 7')
    main.threshold = FITS
    main.startInvocation()
    const again = await agent.invoke('say 8').then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(again).toBeInstanceOf(ContextWindowOverflowError)
    expect(summarizer.log.length).toBeGreaterThan(2)
    expect(
      logger.lines.filter((l) => l.text.includes('the only part of the window a summary may take')),
    ).toHaveLength(2)
  })
})
