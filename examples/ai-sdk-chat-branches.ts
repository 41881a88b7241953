/**
 * Regenerate and edit in an AI SDK chat kept by `context-ledger/ai-sdk`, offline. The AI SDK's own chat
 * logic (`AbstractChat`, what `useChat` wraps) sends its requests to the route of
 * examples/ai-sdk-chat-route.ts; a scripted model (examples/ai-sdk-chat-model.ts) answers through a tool
 * call. The chat regenerates an answer and edits a question: each time the session is rewound, the
 * replaced messages leave the conversation as an abandoned branch — listed by `branches()`, offered as
 * alternatives, found by `search` — and nothing is deleted. A second process opens the file and sees
 * the same chat and tree. Last, the same two moves in an agent loop over ModelMessages (`generateText`).
 *
 *   npx tsx examples/ai-sdk-chat-branches.ts                 # into a temp file, removed at the end
 *   npx tsx examples/ai-sdk-chat-branches.ts --db ./chat.db  # the file is kept
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { generateText, stepCountIs, type UIMessage } from 'ai'
// In your project: import { openContextStore, type ContextStore } from 'context-ledger'
import { openContextStore, type ContextStore } from '../src/index.js'
// In your project: import { ledgerSession, … } from 'context-ledger/ai-sdk'
import { ledgerSession, type LedgerSession, type MessageAlternative } from '../src/adapters/ai-sdk/index.js'
import { HeadlessChat } from './ai-sdk-chat-client.js'
import { runbookModel } from './ai-sdk-chat-model.js'
import { chatRoute, lookupRunbook } from './ai-sdk-chat-route.js'

/** The chat's id (`useChat({ id })`), and the ledger session's. */
export const CHAT_ID = 'support-chat'
/** The agent loop's session. */
export const AGENT_ID = 'agent-run'

const { values: args } = parseArgs({ options: { db: { type: 'string' }, check: { type: 'string' } } })

/** A message's text (its text parts), or its tool calls. */
function textOf(m: UIMessage): string {
  const text = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')
  const tools = m.parts.filter((p) => p.type.startsWith('tool-')).length
  return `${tools > 0 ? `[${tools} tool call] ` : ''}${text}`
}

const screenOf = (messages: readonly UIMessage[]) =>
  messages.map((m) => `    ${m.role.padEnd(9)} ${m.id.slice(0, 8).padEnd(8)}  ${textOf(m)}`).join('\n')

/** The chat as `loadUIMessages` gives it and its tree, as one line each: what a second process must see. */
async function fingerprint(store: ContextStore): Promise<string> {
  const session = ledgerSession({ store, sessionId: CHAT_ID, format: 'ui' })
  const ids = (await session.loadUIMessages()).map((m) => m.id)
  const tree = (await session.branches()).map((b) => `${b.sessionId}<${b.parentId ?? ''}@${b.forkSeq ?? ''}`)
  return JSON.stringify({ ids, tree })
}

/** A session's tree as indented lines. */
async function printTree(session: LedgerSession): Promise<void> {
  const tree = await session.branches()
  for (const b of tree)
    console.log(
      `    ${'  '.repeat(b.depth)}${b.sessionId} (${b.kind}${b.parentId === null ? '' : `, from ${b.parentId} after seq ${b.forkSeq}`}): ${b.messageCount} messages, ${b.ownMessages} its own${b.reason === null ? '' : ` — ${b.actor ?? ''}: ${b.reason}`}`,
    )
}

/** The useChat part: ask, regenerate, follow up, edit; the tree, alternatives, search, a bad id. */
async function chatStory(store: ContextStore): Promise<void> {
  const { model } = runbookModel()
  const route = chatRoute(store, model)
  const chat = new HeadlessChat({ id: CHAT_ID, handler: route.POST })
  console.log('1. A question, answered through a tool call (sendMessage)')
  await chat.sendMessage({ text: 'How does db-eu fail over?' })
  console.log(screenOf(chat.messages))
  const first = chat.messages[1]?.id ?? ''
  console.log('\n2. Regenerate the answer (regenerate(): trigger regenerate-message)')
  await chat.regenerate()
  console.log(screenOf(chat.messages))
  console.log('\n3. A follow-up, then the follow-up edited (sendMessage({ text, messageId }))')
  await chat.sendMessage({ text: 'Who approves it?' })
  const followUp = chat.messages[2]?.id ?? ''
  await chat.sendMessage({ text: 'Who is on call for it?', messageId: followUp })
  console.log(screenOf(chat.messages))
  console.log('\n4. The tree (session.branches())')
  await printTree(ledgerSession({ store, sessionId: CHAT_ID, format: 'ui' }))
  console.log('\n5. The alternatives of the first answer (GET /api/chat?chat=…&message=…)')
  const url = `http://localhost/api/chat?chat=${CHAT_ID}&message=${chat.messages[1]?.id ?? ''}`
  const alternatives = (await (await route.GET(new Request(url))).json()) as MessageAlternative<UIMessage>[]
  alternatives.forEach((a, i) => {
    console.log(
      `    ${i + 1} / ${alternatives.length}  ${textOf(a.message)}  → chat ${a.sessionId}${a.current ? ' (shown)' : ''}`,
    )
  })
  console.log(
    `  the replaced answer ${first.slice(0, 8)} is one of them: ${alternatives.some((a) => a.message.id === first) ? 'yes' : 'NO'}`,
  )
  console.log('\n6. Nothing lost: search finds the replaced messages in their branches')
  for (const q of ['approves', 'standby'])
    for (const hit of store.search(q, { limit: 5 }))
      console.log(
        `    "${q}": ${hit.sessionId} seq ${hit.seq} ${hit.role}: ${hit.snippet.replaceAll('\n', ' ')}`,
      )
  console.log('\n7. Regenerating a message the chat does not have (a stale or forged request)')
  const bad = await route.POST(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      body: JSON.stringify({
        id: CHAT_ID,
        messages: chat.messages.slice(0, 1),
        trigger: 'regenerate-message',
        messageId: 'no-such-id',
      }),
    }),
  )
  const body = (await bad.json()) as { code: string; path: string }
  const kept = await ledgerSession({ store, sessionId: CHAT_ID, format: 'ui' }).loadUIMessages()
  console.log(
    `    HTTP ${bad.status} ${body.code} at ${body.path}; the chat still has its ${kept.length} messages`,
  )
}

/** The agent-loop part: generateText over the window, then regenerate and edit the ModelMessage session. */
async function agentStory(store: ContextStore): Promise<void> {
  const { model } = runbookModel()
  const session = ledgerSession({ store, sessionId: AGENT_ID })
  const run = async () => {
    const result = await generateText({
      model,
      tools: { lookup_runbook: lookupRunbook },
      messages: await session.window(),
      prepareStep: session.prepareStep,
      onStepEnd: session.onStepEnd,
      stopWhen: stepCountIs(5),
    })
    return result.text
  }
  await session.append([{ role: 'user', content: 'How does db-eu fail over?' }])
  console.log(`    answer:       ${await run()}`)
  const again = await session.regenerate()
  console.log(
    `    regenerated:  ${await run()}   (${again.left} messages left as ${again.abandoned?.sessionId ?? '-'})`,
  )
  const edit = await session.replaceMessage(
    { seq: 0 },
    { role: 'user', content: 'Who approves a db-eu failover?' },
  )
  console.log(
    `    edited:       ${await run()}   (${edit.left} messages left as ${edit.abandoned?.sessionId ?? '-'})`,
  )
  await printTree(session)
}

/** The second process: opens the file and prints what it sees. */
function secondProcess(file: string): void {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--check', file],
    {
      encoding: 'utf8',
    },
  )
  if (child.status !== 0) throw new Error(`the second process failed: ${child.stderr}`)
  process.stdout.write(child.stdout)
}

if (args.check !== undefined) {
  const store = openContextStore(args.check, { readonly: true })
  console.log(`  process 2 (pid ${process.pid}) sees: ${await fingerprint(store)}`)
  store.close()
} else {
  const dir = args.db === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-chat-')) : undefined
  const file = args.db ?? join(dir ?? '', 'chat.db')
  const store = openContextStore(file)
  try {
    await chatStory(store)
    console.log('\n8. A restart: another process opens the file')
    console.log(`  process 1 (pid ${process.pid}) sees: ${await fingerprint(store)}`)
    secondProcess(file)
    console.log('\n9. The same in an agent loop (ModelMessages, generateText)')
    await agentStory(store)
  } finally {
    store.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}
