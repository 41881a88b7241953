/**
 * The tree the branch-reads tests read (test/store/branches-reads-*.test.ts), on either backend: a root,
 * a fork of a fork, a sibling, and a turn of the root's after every fork.
 */
import type { MessageData, SearchHit } from '../../src/index.js'
import type { BranchStore } from './branch-run.js'

/** A user text message. */
export const user = (text: string): MessageData => ({ role: 'user', content: [{ text }] })
/** An assistant text message. */
export const assistant = (text: string): MessageData => ({ role: 'assistant', content: [{ text }] })
/** Each hit as `session:seq`, sorted. */
export const where = (hits: readonly SearchHit[]): string[] =>
  hits.map((h) => `${h.sessionId}:${h.seq}`).sort()

/** `n` turns of session `id`, each naming `tag` and replication. */
export async function turns(store: BranchStore, id: string, n: number, tag = id): Promise<void> {
  for (let i = 0; i < n; i++)
    await store.append(id, [user(`${tag} question ${i} on replication`), assistant(`${tag} answer ${i}`)])
}

/**
 * root: 6 turns (seqs 0–11); `a` forked at 7 with 2 turns of its own (8–11); `aa` forked from `a` at 9
 * with 1 turn (10–11); `b`, a sibling of `a`, forked at 3 with 1 turn (4–5); then the root appends 1 turn
 * (12–13) after every fork.
 */
export async function tree(store: BranchStore): Promise<void> {
  await turns(store, 'root', 6)
  await store.fork('root', { atSeq: 7, newSessionId: 'a' })
  await turns(store, 'a', 2)
  await store.fork('a', { atSeq: 9, newSessionId: 'aa' })
  await turns(store, 'aa', 1)
  await store.fork('root', { atSeq: 3, newSessionId: 'b' })
  await turns(store, 'b', 1)
  await turns(store, 'root', 1, 'late root')
}
