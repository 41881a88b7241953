/**
 * The second process of the branch tests: opens the ledger at a location (a SQLite file or a PostgreSQL
 * connection string) with a new store and a new `ledgerSession`, prints what it sees of a chat — its
 * messages, its tree, the window — as one JSON line, then goes on from there as a browser would after a
 * reload (the SDK's chat logic, given the loaded messages): regenerates the newest answer through the
 * example route, and prints the chat and the tree again.
 *
 *   node --import tsx test/adapters/ai-sdk/chat-restart-worker.ts <location> <chat id>
 */
import { ledgerSession } from '../../../src/adapters/ai-sdk/index.js'
import { coreStoreOf, openLedger } from '../../helpers/ledger-open.js'
import { HeadlessChat } from '../../../examples/ai-sdk-chat-client.js'
import { runbookModel } from '../../../examples/ai-sdk-chat-model.js'
import { chatRoute } from '../../../examples/ai-sdk-chat-route.js'

const [location, chatId] = process.argv.slice(2)
if (location === undefined || chatId === undefined) throw new Error('usage: <location> <chat id>')
const handle = await openLedger(location)
const store = coreStoreOf(handle)
const session = ledgerSession({ store, sessionId: chatId, format: 'ui' })
const tree = async () =>
  (await session.branches()).map((b) => ({
    sessionId: b.sessionId,
    parentId: b.parentId,
    forkSeq: b.forkSeq,
    kind: b.kind,
    ownMessages: b.ownMessages,
  }))
const messages = await session.loadUIMessages()
const seen = { ids: messages.map((m) => m.id), tree: await tree(), window: await session.window() }
const chat = new HeadlessChat({ id: chatId, messages, handler: chatRoute(store, runbookModel().model).POST })
await chat.regenerate()
const after = { ids: chat.messages.map((m) => m.id), tree: await tree() }
process.stdout.write(`${JSON.stringify({ seen, after })}\n`)
await handle.close()
