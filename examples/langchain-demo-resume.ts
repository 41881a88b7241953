/**
 * The second process of `npm run demo -- --langchain`: a fresh Node process builds the agent again on the
 * same files — a new store, a new `ledgerMiddleware`, a new checkpointer and model — reads the window of
 * the thread and checks it is the one the first process left (by thread id alone), then asks about the
 * first turn's fact, which left the window long before: the model finds it with `search_history`. Exit 1
 * if any of that does not hold.
 *
 *   npx tsx examples/langchain-demo-resume.ts <ledger file> <expected fingerprint>
 */
import { answerOf, ask, CONTEXT_LIMIT, fingerprint, int, open, THREAD_ID } from './langchain-demo-agent.js'
import { SupportModel } from './langchain-demo-model.js'

const [file, expected] = process.argv.slice(2)
if (file === undefined || expected === undefined)
  throw new Error('usage: langchain-demo-resume <ledger file> <expected fingerprint>')

const model = new SupportModel({ contextLimit: CONTEXT_LIMIT, idPrefix: 'p2-' })
const o = open(file, model)
const window = await o.ledger.session(THREAD_ID).window()
const same = fingerprint(window) === expected
console.log(
  `  process 2 (pid ${process.pid}): ledgerMiddleware on the same file, thread "${THREAD_ID}": ` +
    `window ${window.length} messages, fingerprint ${fingerprint(window)}: the same window: ${same ? 'yes' : 'NO'}`,
)
const inWindow = window.some((m) => m.text.includes('RF-7731'))
console.log(
  `\nRecall: the refund code of the first turn is in the window: ${inWindow ? 'yes' : 'no'}; the agent is asked:`,
)
const state = await ask(o, 'What was my refund code?')
const answer = answerOf(state)
const calls = state.flatMap((m) =>
  'tool_calls' in m ? ((m.tool_calls as { name: string }[] | undefined) ?? []) : [],
)
const searched = calls.some((c) => c.name === 'search_history')
const recalled = answer.includes('RF-7731')
const [first, second] = model.calls
console.log(
  `  model call 1: ${first?.messages ?? 0} messages, ${int(first?.tokens ?? 0)} tokens, the code among them: ${first?.text.includes('RF-7731') === true ? 'yes' : 'no'} → it calls search_history`,
)
console.log(
  `  model call 2: ${second?.messages ?? 0} messages, ${int(second?.tokens ?? 0)} tokens, the search result among them: ${second?.text.includes('RF-7731') === true ? 'yes' : 'no'}`,
)
console.log(
  `  answer: "${answer}" (search_history found it in the archive: ${searched && recalled ? 'yes' : 'NO'})`,
)
o.close()
if (!(same && !inWindow && searched && recalled && model.refused === 0)) process.exitCode = 1
