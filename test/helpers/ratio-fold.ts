/**
 * A fold written straight through the store (`planFold` then `writeFold`), without a manager or a model:
 * the start of a session's window, by ratio, nothing preserved.
 */
import type { SummaryRecord, WindowLimits } from '../../src/index.js'
import type { LedgerStore } from './ledger-open.js'

/**
 * Folds `ratio` of the start of `id`'s window into a summary.
 *
 * @param store - the store (either backend)
 * @param id - the session
 * @param limits - the limits the fold is planned under
 * @param ratio - how much of the window to fold
 * @param name - the summary's text and uid from the plan (deterministic ones let two stores be compared)
 * @returns the summary written
 * @throws Error when the plan folds nothing
 */
export async function ratioFold(
  store: Pick<LedgerStore, 'planFold' | 'writeFold'>,
  id: string,
  limits: WindowLimits,
  ratio: number,
  name: (plan: { input: readonly { trackingId?: string }[]; newBoundary: number }) => {
    text: string
    uid: string
  },
): Promise<SummaryRecord> {
  const planned = await store.planFold(id, limits, { kind: 'ratio', ratio, preserve: 0 })
  if (!('plan' in planned)) throw new Error(`${id} folds nothing: ${planned.nothing}`)
  const { text, uid } = name(planned.plan)
  return store.writeFold(planned.plan, {
    message: {
      role: 'user',
      content: [{ text }],
      trackingId: uid,
      metadata: { custom: { contextLedger: { summary: true } } },
    },
    uid,
    text,
    tokens: 3,
    model: undefined,
    promptHash: 'x',
  })
}
