/**
 * Branches with the OpenAI Agents SDK, offline: the support agent of `npm run demo -- --openai-agents`
 * (the same scripted model, tool and session) runs three turns through the SDK's real `run()`; then
 * - `fork({ atItem })` starts a branch before the last question and asks another one there — the session
 *   is unchanged;
 * - `popItem()` takes the last answer back: it leaves as an abandoned branch, which reads as the session
 *   did before the pop and which `search` still finds;
 * - the question is asked again and its answer replaced by `applyHistoryTransaction({ replace_suffix })`
 *   (what the runner does with an accepted output), another abandoned branch;
 * and prints the tree (`branches()`). Every line printed is read back from the file.
 *
 * How the SDK's calls map to the ledger's branches (docs/openai-agents.md, "Branches"):
 * - `popItem()` → `rewind` to before the item: it leaves as an abandoned branch (`reason: 'popItem'`);
 * - `replace_suffix` → `rewind` to before the suffix and append the replacement, in one transaction
 *   (`actor: 'agent'`, `reason: 'replace_suffix (operation <id>)'`);
 * - `fork()` → the store's `fork` (nothing copied); a branch is a session id: `new LedgerSession({ store,
 *   sessionId: branchId })` continues it, in this process or after a restart.
 * On a PostgreSQL store without `rewindAndAppend`, `popItem` and `replace_suffix` write a marker row
 * instead (the item stays in the session, withdrawn); `fork` and `branches` are the same there.
 *
 *   npx tsx examples/openai-agents-branches.ts                 # into a temp file, removed at the end
 *   npx tsx examples/openai-agents-branches.ts --db ./support.db   # the file is kept
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { run, setTracingDisabled, type AgentInputItem } from '@openai/agents'
// In your project: import { LedgerSession } from 'context-ledger/openai-agents'
import { LedgerSession } from '../src/adapters/openai-agents/index.js'
import { CONTEXT_LIMIT, open, SESSION_ID, WINDOW_SIZE } from './openai-agents-demo-agent.js'
import { SupportModel } from './openai-agents-demo-model.js'

const { values: args } = parseArgs({ options: { db: { type: 'string' } } })
setTracingDisabled(true) // offline: no trace export
const dir = args.db === undefined ? mkdtempSync(join(tmpdir(), 'context-ledger-branches-')) : undefined
const file = args.db ?? join(dir ?? '.', 'support.db')

type Item = { type?: string; role?: string; content?: unknown }
/** An item in a few words: a prompt's text, an answer's text, or its type. */
function brief(item: AgentInputItem | undefined): string {
  const i = item as Item | undefined
  if (i === undefined) return '(nothing)'
  if (typeof i.content === 'string') return `"${i.content}"`
  const text = Array.isArray(i.content) ? (i.content[0] as { text?: unknown } | undefined)?.text : undefined
  return typeof text === 'string' ? `"${text}"` : `[${i.type ?? 'message'}]`
}
const lastUser = (items: AgentInputItem[]) => items.findLastIndex((i) => (i as Item).role === 'user')

const model = new SupportModel(CONTEXT_LIMIT)
const o = open(file, model)
try {
  console.log(`Three turns through run() (session "${SESSION_ID}", ${file}):`)
  for (const q of ['Where is order A-1001?', 'And order A-1002?', 'And order A-1003?']) {
    const result = await run(o.agent, q, { session: o.session })
    console.log(`  ${q.padEnd(24)} → ${String(result.finalOutput)}`)
  }
  const items = await o.session.getItems()

  // A branch before the last question, asked something else there.
  const other = await o.session.fork({
    atItem: lastUser(items) - 1,
    newSessionId: 'support-dana-alt',
    reason: 'ask about A-1005 instead',
  })
  const alt = await run(o.agent, 'And order A-1005?', { session: other })
  console.log(`\nfork({ atItem: ${lastUser(items) - 1} }) → "support-dana-alt", asked about A-1005 there:`)
  console.log(`  the branch ends with ${brief((await other.getItems()).at(-1))} (${String(alt.finalOutput)})`)
  console.log(`  the session still ends with ${brief((await o.session.getItems()).at(-1))}`)

  // Take the last answer back.
  const popped = await o.session.popItem()
  const tree = await o.session.branches()
  const abandoned = tree.findLast((b) => b.kind === 'abandoned')
  const undone = new LedgerSession({
    store: o.store,
    sessionId: abandoned?.sessionId ?? '',
    windowSize: WINDOW_SIZE,
  })
  console.log(
    `\npopItem() took back ${brief(popped)}; the session now ends with ${brief((await o.session.getItems()).at(-1))}`,
  )
  console.log(
    `  it left as the abandoned branch "${abandoned?.sessionId ?? '?'}", which still ends with ${brief((await undone.getItems()).at(-1))}`,
  )
  const hits = o.store.search('A-1003 is')
  console.log(`  search("A-1003 is") finds it in: ${hits.map((h) => `"${h.sessionId}"`).join(', ')}`)

  // Ask again, then replace the answer as the runner does with an accepted output.
  await run(o.agent, 'And order A-1003? Please check again.', { session: o.session })
  const last = (await o.session.getItems()).at(-1) as AgentInputItem
  const corrected = {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Order A-1003 is held at customs; it clears on Monday.' }],
  } as AgentInputItem
  await o.session.applyHistoryTransaction({
    operationId: 'correct-a-1003',
    transaction: { type: 'replace_suffix', expectedSuffix: [last], replacement: [corrected] },
  })
  console.log(`\nreplace_suffix: ${brief(last)} → ${brief((await o.session.getItems()).at(-1))}`)

  console.log('\nbranches():')
  for (const b of await o.session.branches())
    console.log(
      `  ${'  '.repeat(b.depth)}${b.sessionId} (${b.kind}${b.forkSeq === null ? '' : ` at seq ${b.forkSeq}`}` +
        `${b.reason === null ? '' : `, ${b.reason}`}): ${b.messageCount} items, ${b.ownMessages} of its own`,
    )
  // The temp file is removed below, so the CLI hint names a file only when --db keeps one.
  console.log(
    args.db === undefined
      ? '\nTo look inside with the CLI, keep the file: npx tsx examples/openai-agents-branches.ts --db ./support.db'
      : `\nLook inside: npx context-ledger branches ${file} ${SESSION_ID}`,
  )
} finally {
  o.store.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}
