/**
 * Regenerate and edit in a `useChat` chat, on either backend (written against test/helpers/backend.ts):
 * the AI SDK's own chat logic (`AbstractChat` with `DefaultChatTransport`, what `useChat` wraps) posting
 * `trigger` and `messageId` to the example route (examples/ai-sdk-chat-route.ts), `streamText` answering
 * through a tool call (`MockLanguageModelV4`). Each regeneration or edit rewinds the chat: the replaced
 * messages leave the conversation as an abandoned branch — listed by `branches()`, offered by
 * `alternatives()`, found by `search` — the model never sees them again, and nothing is deleted. A second
 * process opens the ledger, sees the same chat and tree (the old answer an abandoned branch, found by
 * search), and goes on from it.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ModelMessage, UIMessage } from 'ai'
import { ledgerSession, type MessageAlternative } from '../../../src/adapters/ai-sdk/index.js'
import { coreStoreOf, makeBackend } from '../../helpers/backend.js'
import { HeadlessChat } from '../../../examples/ai-sdk-chat-client.js'
import { runbookModel } from '../../../examples/ai-sdk-chat-model.js'
import { chatRoute } from '../../../examples/ai-sdk-chat-route.js'

const backend = makeBackend()
afterEach(async () => {
  await backend.cleanup()
})

/** A chat on a fresh ledger: the client, the route, the model, the session the route keeps. */
async function chatOn() {
  const handle = await backend.open()
  const store = coreStoreOf(handle)
  const runbook = runbookModel()
  const route = chatRoute(store, runbook.model)
  const chat = new HeadlessChat({ id: 'chat', handler: route.POST })
  const session = ledgerSession({ store, sessionId: 'chat', format: 'ui' })
  return { handle, store, runbook, route, chat, session }
}

const textOf = (m: UIMessage | undefined): string =>
  (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')
const ids = (messages: readonly UIMessage[]) => messages.map((m) => m.id)
const at = <T>(list: readonly T[], i: number): T => {
  const v = list[i]
  if (v === undefined) throw new Error(`no element ${i}`)
  return v
}
const promptsAfter = (prompts: readonly unknown[], from: number) => JSON.stringify(prompts.slice(from))

describe('regenerate the last answer (useChat regenerate())', () => {
  it('goes through a tool call again; the old answer leaves as an abandoned branch, found by search, branches() and alternatives()', async () => {
    const { handle, runbook, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    expect(chat.error).toBeUndefined()
    const [question, first] = [at(chat.messages, 0), at(chat.messages, 1)]
    expect(first.parts.some((p) => p.type === 'tool-lookup_runbook' && p.state === 'output-available')).toBe(
      true,
    )
    expect(textOf(first)).toBe('Take 1: db-eu fails over to its cold standby in eu-west-2 with runbook RB-17')
    const asked = runbook.prompts.length
    await chat.regenerate()
    expect(chat.error).toBeUndefined()
    const second = at(chat.messages, 1)
    expect(ids(chat.messages)).toEqual([question.id, second.id])
    expect(second.id).not.toBe(first.id)
    expect(textOf(second)).toMatch(/^Take 2: /)
    // The model was asked again (a tool call, then the answer), and never saw the old answer.
    expect(runbook.prompts.length).toBe(asked + 2)
    expect(promptsAfter(runbook.prompts, asked)).not.toContain('Take 1')
    expect(JSON.stringify(await session.window())).not.toContain('Take 1')
    expect(ids(await session.loadUIMessages())).toEqual(ids(chat.messages))
    // The tree: the chat keeps its id; the old answer is the abandoned branch's own row after the question.
    expect(await session.branches()).toMatchObject([
      { sessionId: 'chat', parentId: null, kind: 'root', messageCount: 2, ownMessages: 2 },
      {
        sessionId: 'chat~1',
        parentId: 'chat',
        forkSeq: 0,
        kind: 'abandoned',
        messageCount: 2,
        ownMessages: 1,
      },
    ])
    expect((await handle.history('chat~1')).map((e) => e.trackingId)).toEqual([question.id, first.id])
    expect((await handle.history('chat')).map((e) => e.trackingId)).toEqual([question.id, second.id])
    // search: the whole ledger lists the old answer under its branch; the chat's conversation does not.
    const hits = await handle.search('Take standby', { limit: 50 })
    expect(hits.filter((h) => h.trackingId === first.id).map((h) => h.sessionId)).toEqual(['chat~1'])
    const inChat = await handle.search('Take standby', { sessionId: 'chat', limit: 50 })
    expect(inChat.map((h) => h.trackingId)).toContain(second.id)
    expect(inChat.map((h) => h.trackingId)).not.toContain(first.id)
    // alternatives: both versions of the answer, oldest first, each with the chat that goes on from it.
    const alternatives = await session.alternatives({ messageId: second.id })
    expect(alternatives.map((a) => [a.sessionId, (a.message as UIMessage).id, a.current, a.kind])).toEqual([
      ['chat~1', first.id, false, 'abandoned'],
      ['chat', second.id, true, 'root'],
    ])
  })

  it('a request retried after its answer was saved rewinds again: every answer is kept', async () => {
    const { route, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    const body = JSON.stringify({
      id: 'chat',
      messages: chat.messages.slice(0, 1),
      trigger: 'regenerate-message',
    })
    for (let i = 0; i < 2; i++) {
      const response = await route.POST(new Request('http://localhost/api/chat', { method: 'POST', body }))
      expect(response.status).toBe(200)
      await response.text()
    }
    const answer = at(await session.loadUIMessages(), 1)
    expect(textOf(answer)).toMatch(/^Take 3: /)
    const versions = await session.alternatives({ messageId: answer.id })
    expect(versions.map((a) => textOf(a.message as UIMessage).slice(0, 6))).toEqual([
      'Take 1',
      'Take 2',
      'Take 3',
    ])
    expect(versions.map((a) => a.sessionId)).toEqual(['chat~1', 'chat~2', 'chat'])
  })
})

describe('edit and regenerate (useChat sendMessage({ text, messageId }))', () => {
  it('goes on from before the edited message; the old path stays whole as an abandoned branch', async () => {
    const { handle, runbook, chat, session } = await chatOn()
    for (const text of ['How does db-eu fail over?', 'Who approves it?', 'Anything else?'])
      await chat.sendMessage({ text })
    const old = [...chat.messages]
    const edited = at(old, 2)
    const asked = runbook.prompts.length
    await chat.sendMessage({ text: 'Who is on call for it?', messageId: edited.id })
    expect(chat.error).toBeUndefined()
    // useChat keeps the edited message's id; the answer is new.
    expect(ids(chat.messages).slice(0, 3)).toEqual(ids(old).slice(0, 3))
    expect(chat.messages).toHaveLength(4)
    expect(textOf(at(chat.messages, 2))).toBe('Who is on call for it?')
    expect(textOf(at(chat.messages, 3))).toContain('Priya Raman')
    const after = promptsAfter(runbook.prompts, asked)
    expect(after).toContain('Who is on call for it?')
    for (const gone of ['Who approves it?', 'Anything else?', 'Dana Whitfield'])
      expect(after).not.toContain(gone)
    expect(ids(await session.loadUIMessages())).toEqual(ids(chat.messages))
    expect(textOf((await session.loadUIMessages())[2])).toBe('Who is on call for it?')
    // The old question, its answer and the turn after it: the abandoned branch's own rows, after seq 1.
    const abandoned = (await session.branches()).filter((b) => b.kind === 'abandoned')
    expect(abandoned).toMatchObject([
      {
        sessionId: 'chat~1',
        parentId: 'chat',
        forkSeq: 1,
        ownMessages: 4,
        actor: 'user',
        reason: `edit "${edited.id}"`,
      },
    ])
    const kept = await handle.history('chat~1')
    expect(kept.map((e) => e.trackingId)).toEqual(ids(old))
    expect(textOf(kept[2]?.message as unknown as UIMessage)).toBe('Who approves it?')
    const versions = await session.alternatives({ messageId: edited.id })
    expect(versions.map((a) => [a.sessionId, textOf(a.message as UIMessage), a.current])).toEqual([
      ['chat~1', 'Who approves it?', false],
      ['chat', 'Who is on call for it?', true],
    ])
  })

  it('edits the first message: shown in place of the original, what followed it left as a branch', async () => {
    const { store, handle, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    await chat.sendMessage({ text: 'Who approves it?' })
    const old = [...chat.messages]
    const first = at(old, 0)
    await chat.sendMessage({ text: 'Who is on call for db-eu?', messageId: first.id })
    expect(chat.error).toBeUndefined()
    expect(chat.messages.map(textOf)).toEqual([
      'Who is on call for db-eu?',
      expect.stringContaining('Priya Raman'),
    ])
    expect(ids(await session.loadUIMessages())).toEqual(ids(chat.messages))
    expect((await session.loadUIMessages()).map(textOf)).toEqual(chat.messages.map(textOf))
    const window = JSON.stringify(await session.window())
    for (const gone of ['fail over', 'Who approves it?', 'Take 1']) expect(window).not.toContain(gone)
    // The store keeps a message before any rewind point: the first one stays the row, edited in place.
    const [abandoned] = (await session.branches()).filter((b) => b.kind === 'abandoned')
    expect(abandoned).toMatchObject({ forkSeq: 0, ownMessages: 3 })
    const branch = ledgerSession({ store, sessionId: abandoned?.sessionId ?? '', format: 'ui' })
    expect((await branch.loadUIMessages()).map(textOf)).toEqual(old.map(textOf))
    expect((await handle.edits('chat')).map((e) => [e.seq, e.actor])).toEqual([[0, 'user']])
    const versions = await session.alternatives({ messageId: first.id })
    expect(versions.map((a) => [a.sessionId, textOf(a.message as UIMessage), a.current])).toEqual([
      [abandoned?.sessionId, 'How does db-eu fail over?', false],
      ['chat', 'Who is on call for db-eu?', true],
    ])
  })

  it('regenerates an earlier answer (regenerate({ messageId })): it and everything after it leave', async () => {
    const { chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    await chat.sendMessage({ text: 'Who approves it?' })
    const old = [...chat.messages]
    await chat.regenerate({ messageId: at(old, 1).id })
    expect(chat.error).toBeUndefined()
    expect(chat.messages).toHaveLength(2)
    expect(ids(await session.loadUIMessages())).toEqual(ids(chat.messages))
    expect((await session.branches()).filter((b) => b.kind === 'abandoned')).toMatchObject([
      { forkSeq: 0, ownMessages: 3 },
    ])
  })
})

describe('the "1 / 3" arrows: alternatives named by any version', () => {
  it('regenerate twice, then alternatives with each of the three ids: the same three versions, the same order, the chat’s marked current', async () => {
    const { store, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    const shown = [at(chat.messages, 1)]
    for (let i = 0; i < 2; i++) {
      await chat.regenerate()
      expect(chat.error).toBeUndefined()
      shown.push(at(chat.messages, 1))
    }
    const answers = shown.map((m) => m.id)
    expect(new Set(answers).size).toBe(3)
    const expected = [
      ['chat~1', answers[0], 'Take 1', false, 'abandoned'],
      ['chat~2', answers[1], 'Take 2', false, 'abandoned'],
      ['chat', answers[2], 'Take 3', true, 'root'],
    ]
    const row = (a: MessageAlternative<ModelMessage | UIMessage>) => {
      const m = a.message as UIMessage
      return [a.sessionId, m.id, textOf(m).slice(0, 6), a.current, a.kind]
    }
    const lists = []
    for (const messageId of answers) {
      const versions = await session.alternatives({ messageId })
      expect(versions.map(row)).toEqual(expected)
      lists.push(versions)
    }
    // Whole objects equal too (seq, createdAt, message), and equal to the list a seq names.
    expect(lists[1]).toEqual(lists[0])
    expect(lists[2]).toEqual(lists[0])
    expect(await session.alternatives({ seq: 1 })).toEqual(lists[0])
    // The question, named by its id, has one version: none was replaced.
    const question = at(chat.messages, 0).id
    expect((await session.alternatives({ messageId: question })).map(row)).toEqual([
      ['chat', question, 'How do', true, 'root'],
    ])
    // Opened on an abandoned branch, the same ids give the same versions, that branch's marked current.
    const branch = ledgerSession({ store, sessionId: 'chat~1', format: 'ui' })
    for (const messageId of answers)
      expect((await branch.alternatives({ messageId })).map((a) => [a.sessionId, a.current])).toEqual([
        ['chat~1', true],
        ['chat~2', false],
        ['chat', false],
      ])
    // An id in no branch of the tree names itself and the chat.
    await expect(session.alternatives({ messageId: 'no-such-id' })).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
      path: 'messageId',
      message: 'Session "chat" has no message "no-such-id" in its conversation or any of its branches',
    })
  })

  it('the id of an answer only an edited-away path holds: its versions, none current (the chat went another way before it)', async () => {
    const { chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    await chat.sendMessage({ text: 'Who approves it?' })
    const [question, oldAnswer] = [at(chat.messages, 2), at(chat.messages, 3)]
    await chat.sendMessage({ text: 'Who signs it off?', messageId: question.id })
    expect(chat.error).toBeUndefined()
    const versions = await session.alternatives({ messageId: oldAnswer.id })
    expect(versions.map((a) => [a.sessionId, (a.message as UIMessage).id, a.seq, a.current])).toEqual([
      ['chat~1', oldAnswer.id, 3, false],
    ])
    // The edited question, named by its old version's id, is the chat's: both versions, the new one current.
    const asked = await session.alternatives({ messageId: question.id })
    expect(asked.map((a) => [a.sessionId, textOf(a.message as UIMessage), a.current])).toEqual([
      ['chat~1', 'Who approves it?', false],
      ['chat', 'Who signs it off?', true],
    ])
  })

  it('an id in another chat’s tree is not this chat’s: MESSAGE_NOT_FOUND; a chat never written has no versions', async () => {
    const { store, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    const old = at(chat.messages, 1).id
    await chat.regenerate()
    const other = ledgerSession({ store, sessionId: 'other', format: 'ui' })
    await other.saveUIMessages([{ id: 'o1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }])
    await expect(other.alternatives({ messageId: old })).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
      path: 'messageId',
      message: `Session "other" has no message "${old}" in its conversation or any of its branches`,
    })
    const fresh = ledgerSession({ store, sessionId: 'fresh', format: 'ui' })
    await expect(fresh.alternatives({ messageId: old })).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
      message: `Session "fresh" has no message "${old}" in its conversation or any of its branches`,
    })
    expect((await session.alternatives({ messageId: old })).map((a) => a.current)).toEqual([false, true])
  })
})

describe('requests the chat cannot follow', () => {
  it('are refused with the ledger’s code and field (404 / 400 from the route), changing no row', async () => {
    const { handle, route, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    await chat.sendMessage({ text: 'Who approves it?' })
    const [u0, a0, u1] = [at(chat.messages, 0), at(chat.messages, 1), at(chat.messages, 2)]
    const before = await backend.checksum(handle)
    const post = async (body: object) => {
      const response = await route.POST(
        new Request('http://localhost/api/chat', {
          method: 'POST',
          body: JSON.stringify({ id: 'chat', ...body }),
        }),
      )
      return {
        status: response.status,
        ...((await response.json()) as { code: string; path: string; message: string }),
      }
    }
    const regenerate = 'regenerate-message'
    const submit = 'submit-message'
    const reworded: UIMessage = { ...u1, parts: [{ type: 'text', text: 'Who signs it off?' }] }
    /** A refusal: its status, code and field, and a message that says what is wrong. */
    const refused = async (
      body: object,
      want: { status: number; code: string; path: string },
      says: RegExp,
    ) => {
      const got = await post(body)
      expect(got).toMatchObject(want)
      expect(got.message).toMatch(says)
    }
    const notFound = { status: 404, code: 'MESSAGE_NOT_FOUND', path: 'messageId' }
    const contradicts = { status: 400, code: 'INVALID_OPTIONS', path: 'messageId' }
    // A messageId neither the chat nor any branch of it has: a stale or forged request.
    await refused(
      { messages: [u0], trigger: regenerate, messageId: 'no-such-id' },
      notFound,
      /^Session "chat" has no message "no-such-id" in its conversation or any of its branches$/u,
    )
    const forged = [u0, a0, { ...reworded, id: 'nope' }]
    await refused({ messages: forged, trigger: submit, messageId: 'nope' }, notFound, /"nope"/u)
    // A list that contradicts the request: the edited message not last; a regenerated answer not next to the list's end.
    const edit = new RegExp(`the edited message "${u0.id}" must be the list's last message`, 'u')
    await refused({ messages: [u0, a0, reworded], trigger: submit, messageId: u0.id }, contradicts, edit)
    const a1 = at(chat.messages, 3).id
    const far = new RegExp(
      `"${a1}" \\(seq 3\\), but the list ends with "${u0.id}" \\(seq 0\\), not next to it`,
      'u',
    )
    await refused({ messages: [u0], trigger: regenerate, messageId: a1 }, contradicts, far)
    const triggers = /^Invalid saveUIMessages options at trigger: .*"regenerate-message"/u
    await refused({ messages: [u0], trigger: 'resume-stream' }, { ...contradicts, path: 'trigger' }, triggers)
    // An edit sent without trigger and messageId (a route written before branches) is not appended after u1.
    const unsaid = await post({ messages: [u0, a0, reworded] })
    expect(unsaid).toMatchObject({ status: 400, code: 'INVALID_MESSAGE', path: '[2].id' })
    expect(unsaid.message).toContain("pass the request's { trigger, messageId } to saveUIMessages")
    // An edit whose new id a message that stays already has.
    await expect(
      session.replaceMessage({ messageId: u1.id }, { ...reworded, id: a0.id }),
    ).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: '[0].id',
    })
    await expect(session.alternatives({ messageId: 'nope' })).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    })
    expect(await backend.checksum(handle)).toBe(before)
  })
})

describe('switching to an alternative', () => {
  it('opens the branch that goes on from it as a chat of its own; the main chat is untouched', async () => {
    const { store, route, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    await chat.regenerate()
    const shown = ids(chat.messages)
    const [old] = (await session.alternatives({ seq: 1 })).filter((a) => !a.current)
    const branch = ledgerSession({ store, sessionId: old?.sessionId ?? '', format: 'ui' })
    const other = new HeadlessChat({
      id: old?.sessionId ?? '',
      messages: await branch.loadUIMessages(),
      handler: route.POST,
    })
    expect(textOf(at(other.messages, 1))).toMatch(/^Take 1/)
    await other.sendMessage({ text: 'Who approves it?' })
    expect(other.error).toBeUndefined()
    expect(ids(await branch.loadUIMessages())).toEqual(ids(other.messages))
    expect(other.messages).toHaveLength(4)
    expect(ids(await session.loadUIMessages())).toEqual(shown)
  })
})

describe('a restart', () => {
  it('a second process sees the same chat, tree and window, and goes on from the same branch', async () => {
    const { handle, chat, session } = await chatOn()
    await chat.sendMessage({ text: 'How does db-eu fail over?' })
    const replaced = at(chat.messages, 1).id
    await chat.regenerate()
    await chat.sendMessage({ text: 'Who approves it?' })
    await chat.sendMessage({ text: 'Who is on call for it?', messageId: at(chat.messages, 2).id })
    const tree = (await session.branches()).map(({ sessionId, parentId, forkSeq, kind, ownMessages }) => ({
      sessionId,
      parentId,
      forkSeq,
      kind,
      ownMessages,
    }))
    const window: ModelMessage[] = await session.window()
    const worker = join(import.meta.dirname, 'chat-restart-worker.ts')
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', worker, backend.location(handle), 'chat', replaced, 'Take standby'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    expect(child.stderr).toBe('')
    const { seen, after } = JSON.parse(child.stdout) as {
      seen: { ids: string[]; tree: typeof tree; window: unknown; old: unknown }
      after: { ids: string[]; tree: typeof tree }
    }
    // The replaced first answer: listed there as the abandoned branch chat~1, found by search in it only.
    expect(tree).toContainEqual({
      sessionId: 'chat~1',
      parentId: 'chat',
      forkSeq: 0,
      kind: 'abandoned',
      ownMessages: 1,
    })
    expect(seen).toEqual({
      ids: ids(chat.messages),
      tree,
      window: JSON.parse(JSON.stringify(window)) as unknown,
      old: { ledger: ['chat~1'], chat: [] },
    })
    // It regenerated the newest answer: one more abandoned branch, which this process sees too.
    expect(after.ids.slice(0, 3)).toEqual(ids(chat.messages).slice(0, 3))
    expect(after.tree).toHaveLength(tree.length + 1)
    expect(ids(await session.loadUIMessages())).toEqual(after.ids)
    expect((await session.branches()).map((b) => b.sessionId)).toEqual(after.tree.map((b) => b.sessionId))
  })
})
