-- Recall: a full-text index of the archive (docs/design.md, "Recall"). Custom migration: drizzle-kit has no
-- FTS5 support, so the view, the index and the expression index behind them are written here by hand.
-- The index is external-content: it stores only its inverted lists, and reads the text it snippets from
-- the view `search_text`, which is the one definition of "the text of a message" (or of a summary). The
-- store inserts and deletes index entries with that view, so a delete removes exactly what was inserted.
-- This migration creates them empty; the store fills the index for the rows a ledger already holds, in
-- batches, in the same transaction (src/db/search-fill.ts). Messages are indexed in batches inside append
-- transactions, up to the watermark `search_state.indexed_to` (src/store/search-index.ts).
--
-- Also the eviction log: one row per run of messages a cut took out of the window (docs/design.md, "Recall").
--
-- A document of the index is a message (doc = messages.id) or a summary (doc = -summaries.id). The view's
-- `WHERE doc = ?` reaches each table by a seek: messages by their rowid, summaries by this index.
CREATE INDEX `summaries_search_doc` ON `summaries` ((-`id`));
--> statement-breakpoint
-- The text of one stored message body: its blocks' text, one per line — text, reasoning text, a tool
-- call's name and input (JSON), a tool result's text, JSON and document text, a document's name and
-- text, a guard block's text, a citation block's text. Media bytes, ids, signatures and metadata are not
-- text.
CREATE VIEW `search_text` (`doc`, `session`, `text`) AS
SELECT d.doc, d.session, (
  SELECT group_concat(x.t, char(10)) FROM (
    SELECT CASE
      WHEN b.value ->> '$.text' IS NOT NULL THEN b.value ->> '$.text'
      WHEN b.value -> '$.toolUse' IS NOT NULL
        THEN concat_ws(' ', b.value ->> '$.toolUse.name', b.value -> '$.toolUse.input')
      WHEN b.value -> '$.toolResult' IS NOT NULL THEN (
        SELECT group_concat(CASE
          WHEN r.value ->> '$.text' IS NOT NULL THEN r.value ->> '$.text'
          WHEN r.value -> '$.json' IS NOT NULL THEN r.value -> '$.json'
          WHEN r.value -> '$.document' IS NOT NULL THEN (
            SELECT concat_ws(' ', r.value ->> '$.document.name', group_concat(s.value, ' '))
            FROM json_tree(r.value, '$.document.source') s WHERE s.key = 'text' AND s.type = 'text')
        END, char(10)) FROM json_each(b.value, '$.toolResult.content') r)
      WHEN b.value ->> '$.reasoning.text' IS NOT NULL THEN b.value ->> '$.reasoning.text'
      WHEN b.value -> '$.document' IS NOT NULL THEN (
        SELECT concat_ws(' ', b.value ->> '$.document.name', group_concat(s.value, ' '))
        FROM json_tree(b.value, '$.document.source') s WHERE s.key = 'text' AND s.type = 'text')
      WHEN b.value ->> '$.guardContent.text.text' IS NOT NULL THEN b.value ->> '$.guardContent.text.text'
      WHEN b.value -> '$.citations' IS NOT NULL THEN (
        SELECT group_concat(c.value ->> '$.text', char(10)) FROM json_each(b.value, '$.citations.content') c)
    END AS t
    FROM json_each(d.body, '$.content') b
  ) x
) FROM (
  SELECT `id` AS doc, `session`, `body` FROM `messages`
  UNION ALL
  SELECT -`id` AS doc, `session`, `body` FROM `summaries`
) d;
--> statement-breakpoint
-- detail=full keeps token positions, for phrase and NEAR queries; the porter stemmer lets `replicate`
-- find `replication`; remove_diacritics lets `cafe` find `café`.
CREATE VIRTUAL TABLE `search_index` USING fts5(
  `text`,
  content = 'search_text',
  content_rowid = 'doc',
  tokenize = 'porter unicode61 remove_diacritics 2',
  detail = full
);
--> statement-breakpoint
-- A deleted message's terms leave the index's pages at once (a redaction erases them), not at a later merge.
INSERT INTO `search_index` (`search_index`, `rank`) VALUES ('secure-delete', 1);
--> statement-breakpoint
-- The watermark: every message with `id <= indexed_to` is in `search_index`; those above wait for the next
-- batch, which an append's transaction writes once enough of them wait (and `close()` writes the rest).
-- One row, written with each batch.
CREATE TABLE `search_state` (
  `id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
  `indexed_to` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `search_state` (`id`, `indexed_to`) VALUES (1, 0);
--> statement-breakpoint
-- The eviction log: one row per run of consecutive seqs that one cut took out of the window's tail (a cut
-- over pinned messages leaves in pieces), and one per kept row a cut releases. Keyed so that "why and
-- when did seq N leave" is one seek: the first row with `to_seq > N` (the highest `version` among equal
-- `to_seq`) is the last time N left, when `from_seq <= N`. Written in the cut's transaction.
CREATE TABLE `eviction_log` (
  `session` integer NOT NULL REFERENCES `sessions`(`pk`),
  `to_seq` integer NOT NULL,
  `version` integer NOT NULL,
  `from_seq` integer NOT NULL,
  `at` integer NOT NULL,
  `cut` text NOT NULL,
  `reason` text NOT NULL,
  `summary` integer,
  PRIMARY KEY (`session`, `to_seq`, `version` DESC)
) WITHOUT ROWID;
