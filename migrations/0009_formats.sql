-- Message formats (docs/design.md, "Message formats"): a session's format is fixed by its first append
-- (null: 'strands', what every earlier session holds). A message or summary of another format carries its
-- searchable text, derived by its format module at append, in `text`; the view `search_text` reads it, and
-- derives the text of a Strands body (text null) from the body as before. The index's entries do not
-- change: every row this migration finds is a Strands row, whose text the view computes as it did.
ALTER TABLE `messages` ADD `text` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `format` text;--> statement-breakpoint
ALTER TABLE `summaries` ADD `text` text;--> statement-breakpoint
DROP VIEW `search_text`;--> statement-breakpoint
-- As in 0008, with the stored text first.
CREATE VIEW `search_text` (`doc`, `session`, `text`) AS
SELECT d.doc, d.session, CASE WHEN d.text IS NOT NULL THEN d.text ELSE (
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
) END FROM (
  SELECT `id` AS doc, `session`, `body`, `text` FROM `messages`
  UNION ALL
  SELECT -`id` AS doc, `session`, `body`, `text` FROM `summaries`
) d;
