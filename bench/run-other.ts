/**
 * The benches `npm run bench` runs instead of rows a–h when given their flag: `--postgres [--search]`,
 * `--scale`, `--recall`, `--contention`, `--ai-sdk`, `--openai-agents`, `--langchain`, `--claude [--postgres]` and
 * `--branches [--postgres]`;
 * each parses the remaining options itself.
 */

/**
 * Runs the bench an option names, if any.
 *
 * @param argv - the arguments after the script name
 * @returns true when a bench ran (rows a–h must not), false for none
 */
export async function runOther(argv: readonly string[]): Promise<boolean> {
  if (argv.includes('--branches')) {
    // What branches cost: a fork of a 1,000,000-message session vs a 1,000-message one, the agent loop in a
    // branch at depth 1, 10 and 100, search in a branch (SQLite, or PostgreSQL with --postgres; see
    // bench/branches.ts). Before --postgres alone.
    const { runBranches } = await import('./branches.js')
    process.stdout.write(await runBranches(argv.filter((a) => a !== '--branches')))
    return true
  }
  if (argv.includes('--claude')) {
    // The Claude Agent SDK's session store calls: ours (SQLite, and PostgreSQL with --postgres) against
    // InMemorySessionStore and the CLI's JSONL files (see bench/claude-agent.ts). Before --postgres alone.
    const { runClaude } = await import('./claude-agent.js')
    process.stdout.write(await runClaude(argv.filter((a) => a !== '--claude')))
    return true
  }
  if (argv.includes('--postgres') && argv.includes('--search')) {
    // A two-word search over 1,000,000 messages on PostgreSQL (see bench/postgres-search.ts).
    const { runPostgresSearchBench } = await import('./postgres-search.js')
    await runPostgresSearchBench(argv.filter((a) => a !== '--postgres' && a !== '--search'))
    return true
  }
  if (argv.includes('--postgres')) {
    // The PostgreSQL backend on a local server (see bench/postgres.ts).
    const { runPostgresBench } = await import('./postgres.js')
    await runPostgresBench(argv.filter((a) => a !== '--postgres'))
    return true
  }
  if (argv.includes('--scale')) {
    // 1,000,000 messages across 1,000 sessions (see bench/scale.ts).
    const { runScale } = await import('./scale.js')
    await runScale(argv.filter((a) => a !== '--scale'))
    return true
  }
  if (argv.includes('--recall')) {
    // The full-text index's and the eviction log's cost (bytes per turn, append ratios), then a two-word
    // search over 1,000,000 messages (100,000 with --quick): see bench/recall-cost.ts, bench/recall-search.ts.
    const rest = argv.filter((a) => a !== '--recall')
    const { spawnSync } = await import('node:child_process')
    for (const script of ['recall-cost.ts', 'recall-search.ts'])
      spawnSync(process.execPath, [...process.execArgv, new URL(script, import.meta.url).pathname, ...rest], {
        stdio: 'inherit',
      })
    return true
  }
  if (argv.includes('--contention')) {
    // Processes contending for one file: per-call p99 and max (see bench/contention.ts).
    const { runContention } = await import('./contention.js')
    process.stdout.write(await runContention(argv.filter((a) => a !== '--contention')))
    return true
  }
  if (argv.includes('--ai-sdk')) {
    // An AI SDK chat: ours against the docs' saveChat/loadChat and pruneMessages, and the ModelMessage
    // append against the Strands one (see bench/ai-sdk-chat.ts, bench/ai-sdk-append.ts).
    const { runAiSdkChat } = await import('./ai-sdk-chat.js')
    process.stdout.write(await runAiSdkChat(argv.filter((a) => a !== '--ai-sdk')))
    return true
  }
  if (argv.includes('--openai-agents')) {
    // An OpenAI Agents session: ours against the SDK examples' FileSession and its MemorySession, per turn
    // at 200, 2,000 and 10,000 items (see bench/openai-agents.ts).
    const { runOpenAIAgents } = await import('./openai-agents.js')
    process.stdout.write(await runOpenAIAgents(argv.filter((a) => a !== '--openai-agents')))
    return true
  }
  if (argv.includes('--langchain')) {
    // A LangChain createAgent session with a tool: ours against LangGraph's SqliteSaver (plain, and with
    // trimMessages before the model), per turn at 200, 2,000 and 10,000 messages (see bench/langchain.ts).
    const { runLangChain } = await import('./langchain.js')
    process.stdout.write(await runLangChain(argv.filter((a) => a !== '--langchain')))
    return true
  }
  return false
}
