/**
 * The eviction log's part of a rewind (`store/rewind-log.ts`), declared like the store's statements and
 * prepared with the branch statements (`branch-statements.ts`).
 */
import { write } from './typed-statement.js'

/** A rewind of session @s to @to whose window's tail now starts at @from; @a is the abandoned branch. */
type RewindParams = { s: number; a: number; to: number; from: number; before: number }

/**
 * The eviction log's part of a rewind (`store/rewind-log.ts`): the rows that moved with the messages are
 * the abandoned branch's already (`moveEvictions`); these take care of the rest.
 */
export const REWIND_LOG_STATEMENTS = {
  // The abandoned branch keeps, as its own rows, the session's rows it can no longer read through it: all
  // of them when it does not inherit from the session (a branch rewound before its fork point: @before),
  // else the folds into a summary that moved with the messages and the parts of runs about seqs the
  // session's window shows again (at or past @from: the part before stays the session's, inherited).
  copyRewoundRows: write<[RewindParams]>(
    `INSERT INTO eviction_log (session, to_seq, version, from_seq, at, cut, reason, summary, clock)
    SELECT @a, to_seq, version,
      CASE WHEN @before = 1 OR cut = 'fold' AND summary IN (SELECT id FROM summaries WHERE session = @a)
        THEN from_seq ELSE max(from_seq, @from) END,
      at, cut, reason, summary, clock FROM eviction_log
    WHERE session = @s AND from_seq <= @to AND cut <> 'rewind'
      AND (@before = 1 OR to_seq >= @from
        OR cut = 'fold' AND summary IN (SELECT id FROM summaries WHERE session = @a))`,
  ),
  // The session's rows about seqs its window shows again go, as a dropped summary's do; so do the folds
  // into a summary it no longer holds.
  dropRewoundRows: write<[RewindParams]>(
    `DELETE FROM eviction_log WHERE session = @s AND cut <> 'rewind'
      AND (from_seq >= @from OR cut = 'fold' AND summary IN (SELECT id FROM summaries WHERE session = @a))`,
  ),
  // A run that reaches into the window again ends before it.
  clipRewoundRows: write<[RewindParams]>(
    `UPDATE eviction_log SET to_seq = @from - 1
    WHERE session = @s AND cut <> 'rewind' AND from_seq < @from AND to_seq >= @from`,
  ),
  // The moved rows carry the session's versions: the abandoned branch's version is at least theirs.
  raiseVersion: write<[{ s: number; a: number }]>(
    `UPDATE sessions SET version = max(version, (SELECT version FROM sessions WHERE pk = @s)) WHERE pk = @a`,
  ),
}
