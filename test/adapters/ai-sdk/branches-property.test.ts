/**
 * A property of chats that regenerate and edit, on either backend: random runs of what a `useChat` user
 * does — send a message, regenerate the last answer or an earlier one, edit any of their messages (the
 * first included) — through the SDK's own chat logic and the example route. After every step:
 * - the screen the ledger gives back (`loadUIMessages`) is the client's, ids and texts;
 * - the window holds no answer the chat no longer shows (each answer's "Take N" is unique);
 * - nothing is lost: every message version the client ever showed is in the tree, in the conversation
 *   of some branch, and the tree is one root whose other sessions are abandoned branches of it;
 * - each message's alternatives hold it once, as the current one.
 */
import { afterEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { UIMessage } from 'ai'
import { ledgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { coreStoreOf, makeBackend, type LedgerStore } from '../../helpers/backend.js'
import { fcRuns } from '../../helpers/runs.js'
import { HeadlessChat } from '../../../examples/ai-sdk-chat-client.js'
import { runbookModel } from '../../../examples/ai-sdk-chat-model.js'
import { chatRoute } from '../../../examples/ai-sdk-chat-route.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

type Step =
  | { readonly kind: 'send'; readonly text: string }
  | { readonly kind: 'regenerate'; readonly pick: number | undefined }
  | { readonly kind: 'edit'; readonly pick: number; readonly text: string }

const words = fc.constantFrom('failover?', 'approves?', 'on call?', 'standby?', 'runbook?')
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), text: words }),
  fc.record({ kind: fc.constant('regenerate' as const), pick: fc.option(fc.nat(), { nil: undefined }) }),
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), text: words }),
)

const textOf = (m: UIMessage): string => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')
const versionOf = (m: UIMessage) => `${m.id}|${m.role}|${textOf(m)}`

/** Does what the step says, as a user of the chat would; a step the chat cannot take is skipped. */
async function take(chat: HeadlessChat, s: Step, n: number): Promise<void> {
  const of = (role: UIMessage['role']) => chat.messages.filter((m) => m.role === role)
  if (s.kind === 'send') return chat.sendMessage({ text: `${n}: ${s.text}` })
  if (s.kind === 'edit') {
    const users = of('user')
    const target = users[s.pick % Math.max(1, users.length)]
    if (target === undefined) return chat.sendMessage({ text: `${n}: ${s.text}` })
    return chat.sendMessage({ text: `${n}: edited ${s.text}`, messageId: target.id })
  }
  const answers = of('assistant')
  if (answers.length === 0) return
  if (s.pick === undefined) return chat.regenerate()
  return chat.regenerate({ messageId: answers[s.pick % answers.length]?.id ?? '' })
}

/** Every message version the tree holds: each session's conversation, as the ledger shows it. */
async function versionsInTree(handle: LedgerStore, chatId: string): Promise<Set<string>> {
  const store = coreStoreOf(handle)
  const tree = await ledgerSession({ store, sessionId: chatId, format: 'ui' }).branches()
  // A chat never written (only steps it could not take) has no tree.
  if (tree.length > 0) expect(tree[0]?.sessionId).toBe(chatId)
  expect(tree.slice(1).every((b) => b.kind === 'abandoned')).toBe(true)
  const out = new Set<string>()
  for (const b of tree)
    for (const m of await ledgerSession({ store, sessionId: b.sessionId, format: 'ui' }).loadUIMessages())
      out.add(versionOf(m))
  return out
}

describe('chats that regenerate and edit', () => {
  it('show the client’s chat, window only what it shows, and lose nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), async (steps) => {
        const handle = await backend.open()
        const store = coreStoreOf(handle)
        const chat = new HeadlessChat({ id: 'chat', handler: chatRoute(store, runbookModel().model).POST })
        const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
        const shown = new Set<string>()
        for (const [n, s] of steps.entries()) {
          await take(chat, s, n)
          expect(chat.error).toBeUndefined()
          for (const m of chat.messages) shown.add(versionOf(m))
          expect((await session.loadUIMessages()).map(versionOf)).toEqual(chat.messages.map(versionOf))
          const window = JSON.stringify(await session.window())
          const takes = new Set(chat.messages.flatMap((m) => /Take \d+:/u.exec(textOf(m)) ?? []))
          for (const take of window.match(/Take \d+:/gu) ?? []) expect(takes).toContain(take)
        }
        const kept = await versionsInTree(handle, 'chat')
        for (const v of shown) expect(kept).toContain(v)
        // Each message's alternatives hold it once, as the current one, and versions of its role only.
        for (const m of chat.messages) {
          const versions = await session.alternatives({ messageId: m.id })
          const current = versions.filter((a) => a.current).map((a) => versionOf(a.message as UIMessage))
          expect(current).toEqual([versionOf(m)])
          expect(versions.every((a) => (a.message as UIMessage).role === m.role)).toBe(true)
        }
      }),
      { numRuns: fcRuns(12) },
    )
  })
})
