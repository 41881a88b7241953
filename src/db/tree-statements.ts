/**
 * The writes of `fork()` and `rewind()` (docs/design.md, "Branches"), declared like the store's
 * statements; `branch-statements.ts` prepares them with the other branch statements.
 */
import { write } from './typed-statement.js'

/** A rewind's move: from session @s, the rows after @to, to the abandoned branch @a. */
type Move = { s: number; a: number; to: number }

/** The fork's and the rewind's statements, by name. */
export const TREE_STATEMENTS = {
  insertBranch: write<
    [
      {
        id: string
        now: number
        metadata: string | null
        format: string | null
        parent: number
        forkSeq: number
        kind: 'fork' | 'abandoned'
        actor: string | null
        reason: string | null
        forkVersion: number
        forkTokens: number
        trim: number
        pair: number
      },
    ]
  >(
    `INSERT INTO sessions (id, created_at, updated_at, metadata, format, kept_count, kept_tokens, parent,
      fork_seq, kind, forked_at, fork_actor, fork_reason, fork_version, fork_tokens, fork_trim_point,
      fork_pair_start)
    VALUES (@id, @now, @now, @metadata, @format, 0, 0, @parent, @forkSeq, @kind, @now, @actor, @reason,
      @forkVersion, @forkTokens, @trim, @pair)`,
  ),
  // A branch's window state, written once by a fork or a rewind.
  setBranchWindow: write<
    [
      {
        pk: number
        boundary: number
        keptCount: number | null
        keptTokens: number | null
        keptFirst: number | null
        summary: number | null
        limits: string | null
        forkSummary: number | null
      },
    ]
  >(
    `UPDATE sessions SET boundary = @boundary, kept_count = @keptCount, kept_tokens = @keptTokens,
      kept_first = @keptFirst, summary = @summary, limits = @limits, fork_summary = @forkSummary
    WHERE pk = @pk`,
  ),
  // The fork's copies into the branch @b of what session @p shows up to @f, the branch's boundary @from:
  // the parent's own rows (its kept rows before @from, every row from @from on) …
  copyOwnKept: write<[{ b: number; p: number; lo: number; from: number; f: number }]>(
    `INSERT OR IGNORE INTO branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
    SELECT @b, seq, @p, pinned, 1, recheck, window_body, window_tokens FROM messages
    WHERE session = @p AND kept = 1 AND seq >= @lo AND seq < @from AND seq <= @f`,
  ),
  copyOwnTail: write<[{ b: number; p: number; from: number; f: number }]>(
    `INSERT OR IGNORE INTO branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
    SELECT @b, seq, @p, pinned, 0, 0, window_body, window_tokens FROM messages
    WHERE session = @p AND seq >= @from AND seq <= @f`,
  ),
  // … its own branch rows in the branch's window or with a window form its owner's row lacks …
  copyBranchRows: write<[{ b: number; p: number; from: number; f: number }]>(
    `INSERT OR IGNORE INTO branch_rows (session, seq, owner, pinned, kept, recheck, window_body, window_tokens)
    SELECT @b, o.seq, o.owner, o.pinned, o.kept AND o.seq < @from, o.recheck AND o.kept AND o.seq < @from,
      o.window_body, o.window_tokens
    FROM branch_rows o JOIN messages m ON m.session = o.owner AND m.seq = o.seq
    WHERE o.session = @p AND o.seq <= @f AND (o.kept = 1 AND o.seq < @from OR o.seq >= @from
      OR o.window_body IS NOT m.window_body OR o.window_tokens IS NOT m.window_tokens)`,
  ),
  // … and every other row of the branch's window, as its owner shows it (a boundary moved back).
  fillRange: write<[{ b: number; owner: number; lo: number; hi: number }]>(
    `INSERT OR IGNORE INTO branch_rows (session, seq, owner, window_body, window_tokens)
    SELECT @b, seq, @owner, window_body, window_tokens FROM messages
    WHERE session = @owner AND seq >= @lo AND seq <= @hi`,
  ),

  // A rewind of session @s to @to: its rows after @to become the abandoned branch @a's (moved, not copied).
  moveMessages: write<[Move]>('UPDATE messages SET session = @a WHERE session = @s AND seq > @to'),
  moveCalls: write<[Move]>('UPDATE tool_calls SET session = @a WHERE session = @s AND use_seq > @to'),
  // A call made up to @to and answered after it: answered in the abandoned branch, open again in @s.
  copyAnsweredCalls: write<[Move]>(
    `INSERT INTO tool_calls (session, tool_use_id, name, use_seq, result_seq, status)
    SELECT @a, tool_use_id, name, use_seq, result_seq, status FROM tool_calls INDEXED BY tool_calls_answered
    WHERE session = @s AND result_seq > @to AND use_seq <= @to ORDER BY id`,
  ),
  reopenCalls: write<[{ s: number; to: number }]>(
    'UPDATE tool_calls SET result_seq = NULL, status = NULL WHERE session = @s AND result_seq > @to AND use_seq <= @to',
  ),
  movePinEvents: write<[Move]>('UPDATE pin_events SET session = @a WHERE session = @s AND seq > @to'),
  moveEdits: write<[Move]>('UPDATE message_edits SET session = @a WHERE session = @s AND seq > @to'),
  // A branch rewound to before its fork point: its entries about the rows it still inherits go with its
  // old content too (the abandoned branch no longer reads them through it).
  copyPinEvents: write<[Move]>(
    `INSERT INTO pin_events (session, seq, action, actor, reason, at, version)
    SELECT @a, seq, action, actor, reason, at, version FROM pin_events WHERE session = @s AND seq <= @to ORDER BY id`,
  ),
  copyEdits: write<[Move]>(
    `INSERT INTO message_edits (session, seq, kind, actor, reason, at, body, version)
    SELECT @a, seq, kind, actor, reason, at, body, version FROM message_edits
    WHERE session = @s AND seq <= @to ORDER BY id`,
  ),
  moveEvictions: write<[Move]>('UPDATE eviction_log SET session = @a WHERE session = @s AND from_seq > @to'),
  // Summaries that folded a message after @to.
  moveSummaries: write<[Move]>(
    'UPDATE summaries SET session = @a WHERE session = @s AND to_boundary > @to + 1',
  ),
  // Every session's branch rows on the moved rows: their owner is the abandoned branch now.
  reownBranchRows: write<[Move]>('UPDATE branch_rows SET owner = @a WHERE owner = @s AND seq > @to'),
  dropBranchRowsAfter: write<[session: number, to: number]>(
    'DELETE FROM branch_rows WHERE session = ? AND seq > ?',
  ),
  reparent: write<[Move]>('UPDATE sessions SET parent = @a WHERE parent = @s AND fork_seq > @to'),
  // A branch rewound to before its fork point now inherits only up to @to.
  setForkPoint: write<[{ pk: number; forkSeq: number; tokens: number; trim: number; pair: number }]>(
    `UPDATE sessions SET fork_seq = @forkSeq, fork_tokens = @tokens, fork_trim_point = @trim,
      fork_pair_start = @pair WHERE pk = @pk`,
  ),
}
