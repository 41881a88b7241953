-- Search on PostgreSQL (docs/design.md, "Recall"): the one definition of "the text of a message" (or of a
-- summary), as SQLite's view `search_text` (migrations/0008_recall.sql) defines it. Custom migration:
-- drizzle-kit cannot declare functions. The next migration (generated from schema.ts) stores a tsvector
-- of this text on messages and summaries, so the function must be IMMUTABLE (a generated column's
-- expression must be): it reads only its argument, and every jsonb operator it uses is immutable.
--
-- The text of one stored body: its blocks' text, one per line — text, reasoning text, a tool call's name
-- and input (JSON), a tool result's text, JSON and document text, a document's name and text, a guard
-- block's text, a citation block's text. Media bytes, ids, signatures and metadata are not text.
--
-- Two differences with SQLite's view, neither in what matches:
-- - JSON (a tool call's input, a tool result's JSON) is jsonb's text: keys in jsonb's order, `": "`;
-- - jsonb refuses the escape \u0000 (a NUL, which messages may hold): it becomes a space first — only an
--   escape (an odd number of backslashes before `u0000`), never an escaped backslash followed by
--   `u0000`, so the body stays valid JSON. Bodies without `\u` skip the regular expression.
-- Lone surrogates cannot occur: appends refuse them (src/messages/json-snapshot.ts).
CREATE FUNCTION "context_ledger"."search_text"(body text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (
  WITH doc(j) AS (
    SELECT (CASE WHEN strpos(body, '\u') = 0 THEN body
      ELSE regexp_replace(body, '(?<!\\)((?:\\\\)*)\\u0000', '\1 ', 'g') END)::jsonb
  )
  SELECT string_agg(x.t, E'\n' ORDER BY x.n)
  FROM doc CROSS JOIN LATERAL (
    SELECT b.n, CASE
      WHEN b.v ->> 'text' IS NOT NULL THEN b.v ->> 'text'
      WHEN b.v -> 'toolUse' IS NOT NULL
        THEN concat_ws(' ', b.v -> 'toolUse' ->> 'name', (b.v -> 'toolUse' -> 'input')::text)
      WHEN b.v -> 'toolResult' IS NOT NULL THEN (
        SELECT string_agg(CASE
          WHEN r.v ->> 'text' IS NOT NULL THEN r.v ->> 'text'
          WHEN r.v -> 'json' IS NOT NULL THEN (r.v -> 'json')::text
          WHEN r.v -> 'document' IS NOT NULL THEN concat_ws(' ', r.v -> 'document' ->> 'name', (
            SELECT string_agg(s #>> '{}', ' ')
            FROM jsonb_path_query(r.v -> 'document' -> 'source', 'strict $.**.text ? (@.type() == "string")') s))
        END, E'\n' ORDER BY r.n)
        FROM jsonb_array_elements(CASE jsonb_typeof(b.v -> 'toolResult' -> 'content')
          WHEN 'array' THEN b.v -> 'toolResult' -> 'content' ELSE '[]' END) WITH ORDINALITY r(v, n))
      WHEN b.v -> 'reasoning' ->> 'text' IS NOT NULL THEN b.v -> 'reasoning' ->> 'text'
      WHEN b.v -> 'document' IS NOT NULL THEN concat_ws(' ', b.v -> 'document' ->> 'name', (
        SELECT string_agg(s #>> '{}', ' ')
        FROM jsonb_path_query(b.v -> 'document' -> 'source', 'strict $.**.text ? (@.type() == "string")') s))
      WHEN b.v -> 'guardContent' -> 'text' ->> 'text' IS NOT NULL THEN b.v -> 'guardContent' -> 'text' ->> 'text'
      WHEN b.v -> 'citations' IS NOT NULL THEN (
        SELECT string_agg(c.v ->> 'text', E'\n' ORDER BY c.n)
        FROM jsonb_array_elements(CASE jsonb_typeof(b.v -> 'citations' -> 'content')
          WHEN 'array' THEN b.v -> 'citations' -> 'content' ELSE '[]' END) WITH ORDINALITY c(v, n))
    END AS t
    FROM jsonb_array_elements(CASE jsonb_typeof(doc.j -> 'content')
      WHEN 'array' THEN doc.j -> 'content' ELSE '[]' END) WITH ORDINALITY b(v, n)
  ) x
);
--> statement-breakpoint
-- The indexed words of a body (the generated column `search_vector` of messages and summaries): its text,
-- at most its first 200,000 characters, parsed with the `english` configuration. A tsvector holds at most
-- 1 MB, and 200,000 characters can make more (a hyphenated word is indexed whole and in each part, and a
-- character may be 4 bytes: up to ~7 bytes of tsvector a character was measured): such a text is indexed
-- in its longest prefix that fits, found by halving, instead of failing the append. Only texts over 16 KiB
-- take that path, in a block that catches the limit (a subtransaction); a shorter text cannot reach 1 MB
-- (about 10 bytes of tsvector per byte of text at most). IMMUTABLE, as a generated column's expression
-- must be.
CREATE FUNCTION "context_ledger"."search_vector"(body text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  t text := left("context_ledger"."search_text"(body), 200000);
  n integer;
BEGIN
  IF t IS NULL OR octet_length(t) <= 16384 THEN
    RETURN to_tsvector('english'::regconfig, t);
  END IF;
  n := length(t);
  LOOP
    BEGIN
      RETURN to_tsvector('english'::regconfig, left(t, n));
    EXCEPTION WHEN program_limit_exceeded THEN
      n := n / 2;
    END;
  END LOOP;
END
$$;
