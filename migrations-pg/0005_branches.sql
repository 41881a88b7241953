-- Branches (docs/design.md, "Branches"), as SQLite's migration 0010: a session may fork from another at a
-- seq (`parent`, `fork_seq`, `kind`, who, when and why); its conversation is the parent's up to and including
-- `fork_seq`, then its own rows. No message row is copied: a branch's own window state on the rows it
-- inherits lives in `branch_rows` (keyed by the branch and the seq), and the pin and edit logs record the
-- ledger's log clock (`version`: `identity.log_clock`, a counter every fork bumps and nothing takes back),
-- as does the eviction log (`clock`), so a branch sees its ancestors' entries from before its fork only.
-- Every existing session is a root (`kind` 'root', the rest null). Adds nullable columns, a new table and
-- indexes: no table is rewritten.
CREATE TABLE "context_ledger"."branch_rows" (
	"session" integer NOT NULL,
	"seq" integer NOT NULL,
	"owner" integer NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"kept" boolean DEFAULT false NOT NULL,
	"recheck" boolean DEFAULT false NOT NULL,
	"window_body" text,
	"window_tokens" integer,
	CONSTRAINT "branch_rows_pkey" PRIMARY KEY("session","seq")
);
--> statement-breakpoint
ALTER TABLE "context_ledger"."eviction_log" ADD COLUMN "clock" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."message_edits" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."pin_events" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "parent" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_seq" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "kind" text DEFAULT 'root' NOT NULL;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "forked_at" bigint;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_actor" text;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_reason" text;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_version" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_tokens" bigint;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_trim_point" boolean;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_pair_start" boolean;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_summary" integer;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_summary_ended_at" bigint;--> statement-breakpoint
ALTER TABLE "context_ledger"."sessions" ADD COLUMN "fork_summary_end_reason" text;--> statement-breakpoint
ALTER TABLE "context_ledger"."branch_rows" ADD CONSTRAINT "branch_rows_session_sessions_pk_fk" FOREIGN KEY ("session") REFERENCES "context_ledger"."sessions"("pk") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "branch_rows_kept" ON "context_ledger"."branch_rows" USING btree ("session","seq") WHERE "context_ledger"."branch_rows"."kept";--> statement-breakpoint
CREATE INDEX "branch_rows_recheck" ON "context_ledger"."branch_rows" USING btree ("session","seq") WHERE "context_ledger"."branch_rows"."recheck";--> statement-breakpoint
CREATE INDEX "branch_rows_pinned" ON "context_ledger"."branch_rows" USING btree ("session","seq") WHERE "context_ledger"."branch_rows"."pinned";--> statement-breakpoint
CREATE INDEX "branch_rows_owner" ON "context_ledger"."branch_rows" USING btree ("owner","seq");--> statement-breakpoint
CREATE INDEX "sessions_children" ON "context_ledger"."sessions" USING btree ("parent","fork_seq");--> statement-breakpoint
-- The log clock (SQLite keeps it in search_state): every existing session is a root, so it starts at 0.
ALTER TABLE "context_ledger"."identity" ADD COLUMN "log_clock" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A write that finds, under its locks, that a session it depends on moved since it read (a fork below a
-- session being rewound) calls this to abort its one statement whole: SQLSTATE 40001, which the store
-- retries on a new read (src/backends/postgres/flush-rewind.ts).
CREATE FUNCTION "context_ledger"."write_conflict"() RETURNS integer
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RAISE EXCEPTION 'context-ledger: a session this write depends on changed since it was read'
    USING ERRCODE = '40001';
END
$$;
