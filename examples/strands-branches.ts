/**
 * Branches with a Strands agent: roll an agent back after a bad tool run, answer the prompt again, try two
 * plans side by side, and restart an agent on a branch in a new process — no message copied, none lost.
 * Offline with a scripted model (the same script for every agent; set CONTEXT_LEDGER_USE_BEDROCK=1 and AWS
 * credentials to use Amazon Bedrock instead).
 *
 *   npx tsx examples/strands-branches.ts branches.db                          # day 1: rewind, retry, fork
 *   npx tsx examples/strands-branches.ts branches.db --resume deploy-7-canary # day 2, a new process
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Agent, BedrockModel, tool } from '@strands-agents/sdk'
import type { Message, Model } from '@strands-agents/sdk'
import { z } from 'zod'
// In your project: import { openContextStore, type ContextStore } from 'context-ledger'
import { openContextStore, type ContextStore } from '../src/index.js'
// In your project: import { PersistentConversationManager, type BranchInfo } from 'context-ledger/strands'
import { PersistentConversationManager, type BranchInfo } from '../src/adapters/strands/index.js'
import { ScriptedModel, type ScriptedCall, type ScriptedReply } from './strands-scripted-model.js'

/** The session of day 1, and the branch a second process resumes. */
export const SESSION = 'deploy-7'
export const CANARY = 'deploy-7-canary'

/** What the status tool reports: a stale cache first (the bad tool run), then the truth. */
const status = { stale: true }
const clusterStatus = tool({
  name: 'cluster_status',
  description: 'The health of a cluster',
  inputSchema: z.object({ cluster: z.string() }),
  callback: ({ cluster }) =>
    status.stale ? `${cluster}: DOWN (cached 2 days ago)` : `${cluster}: healthy, 12/12 nodes ready`,
})

function textOf(message: Message | undefined): string {
  return (message?.content ?? [])
    .map((b) => (b.type === 'textBlock' ? b.text : b.type === 'toolResultBlock' ? 'tool result' : ''))
    .join(' ')
}

/**
 * The scripted assistant: checks the status when asked, reads the result, acknowledges the rest.
 *
 * @param call - the call to answer
 * @returns the reply
 */
export function opsReply(call: ScriptedCall): ScriptedReply {
  const last = call.messages.at(-1)
  const result = last?.content.find((b) => b.type === 'toolResultBlock')
  if (result?.type === 'toolResultBlock') {
    const said = result.content.map((c) => (c.type === 'textBlock' ? c.text : '')).join('')
    return said.includes('DOWN')
      ? 'The cluster is down: abort the move.'
      : 'The cluster is healthy: go ahead.'
  }
  const prompt = textOf(last)
  if (prompt.includes('status'))
    return [
      { toolUse: { name: 'cluster_status', input: { cluster: 'eu-2' }, toolUseId: `status-${call.index}` } },
    ]
  return `OK: ${prompt}`
}

function model(): Model {
  if (process.env.CONTEXT_LEDGER_USE_BEDROCK === '1')
    return new BedrockModel({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', region: 'us-east-1' })
  return new ScriptedModel({ script: opsReply })
}

/** An agent keeping its conversation through a manager. */
function agentOn(manager: PersistentConversationManager): Agent {
  return new Agent({ model: model(), tools: [clusterStatus], conversationManager: manager, printer: false })
}

/** What day 1 did, for the printout and the test. */
export interface DayOne {
  /** The answer before the rewind, from the bad tool run, and the one after it. */
  readonly badAnswer: string
  readonly retriedAnswer: string
  /** The last message of each agent after the fork. */
  readonly mainLast: string
  readonly canaryLast: string
  /** The tree of branches. */
  readonly tree: BranchInfo[]
}

/**
 * Day 1: a bad tool run rewound and answered again, then two plans side by side.
 *
 * @param store - the store
 * @returns what happened
 */
export async function dayOne(store: ContextStore): Promise<DayOne> {
  status.stale = true
  const manager = new PersistentConversationManager({ store, sessionId: SESSION, windowSize: 40 })
  const agent = agentOn(manager)
  await agent.invoke('We are moving the billing service to cluster eu-2 tonight.')
  await agent.invoke('Check the cluster status.')
  const badAnswer = textOf(agent.messages.at(-1))

  // The status came from a stale cache: roll back to the prompt, fix the tool, answer the prompt again.
  const prompt = agent.messages.findLast((m) => textOf(m) === 'Check the cluster status.') as Message
  manager.rewind({ trackingId: prompt.trackingId, reason: 'stale status cache' })
  status.stale = false
  await agent.invoke([])
  const retriedAnswer = textOf(agent.messages.at(-1))

  // Two plans side by side: a second agent continues a fork; the first goes on with its own plan.
  const canaryManager = manager.fork({
    trackingId: (agent.messages.at(-1) as Message).trackingId,
    newSessionId: CANARY,
    reason: 'try a canary first',
  })
  const canary = agentOn(canaryManager)
  await canary.invoke('Move 5% of the traffic first.')
  await agent.invoke('Move all of the traffic at once.')
  return {
    badAnswer,
    retriedAnswer,
    mainLast: textOf(agent.messages.at(-1)),
    canaryLast: textOf(canary.messages.at(-1)),
    tree: manager.branches(),
  }
}

/**
 * Day 2, in a new process: an agent restarted on a branch.
 *
 * @param store - the store
 * @param sessionId - the branch
 * @returns the messages the agent restored, and its answer to one more prompt
 */
export async function resume(
  store: ContextStore,
  sessionId: string,
): Promise<{ restored: string[]; answer: string }> {
  const agent = agentOn(new PersistentConversationManager({ store, sessionId, windowSize: 40 }))
  await agent.initialize()
  const restored = agent.messages.map(textOf)
  await agent.invoke('Now move the rest.')
  return { restored, answer: textOf(agent.messages.at(-1)) }
}

function printTree(tree: readonly BranchInfo[]): void {
  for (const b of tree)
    console.log(
      `${'  '.repeat(b.depth)}${b.sessionId}  ${b.kind}` +
        (b.parentId === null ? '' : `, from ${b.parentId} after seq ${String(b.forkSeq)}`) +
        `, ${b.messageCount} messages (${b.ownMessages} its own)` +
        (b.reason === null ? '' : ` — ${b.reason}`),
    )
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { resume: { type: 'string' } },
    allowPositionals: true,
  })
  const path = positionals[0]
  if (path === undefined) throw new Error('usage: strands-branches <file.db> [--resume <sessionId>]')
  if (values.resume === undefined && existsSync(path))
    throw new Error(`${path} exists: day 1 starts a new ledger file (or pass --resume <sessionId>)`)
  const store = openContextStore(path)
  try {
    if (values.resume !== undefined) {
      const { restored, answer } = await resume(store, values.resume)
      console.log(`restarted on ${values.resume}: agent.messages holds ${restored.length} messages`)
      for (const text of restored) console.log(`  ${text}`)
      console.log(`answer: ${answer}`)
      return
    }
    const day = await dayOne(store)
    console.log(`bad tool run:  ${day.badAnswer}`)
    console.log(`after rewind:  ${day.retriedAnswer}`)
    console.log(`main plan:     ${day.mainLast}`)
    console.log(`canary plan:   ${day.canaryLast}`)
    printTree(day.tree)
    const hits = store.search('cached', { sessionId: `${SESSION}~1` })
    console.log(
      `the bad tool result, still searchable: seq ${hits.map((h) => h.seq).join(', ')} of ${SESSION}~1`,
    )
    console.log(`next: npx tsx examples/strands-branches.ts ${path} --resume ${CANARY}`)
  } finally {
    store.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
