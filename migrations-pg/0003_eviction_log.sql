CREATE TABLE "context_ledger"."eviction_log" (
	"session" integer NOT NULL,
	"to_seq" integer NOT NULL,
	"version" integer NOT NULL,
	"from_seq" integer NOT NULL,
	"at" bigint NOT NULL,
	"cut" text NOT NULL,
	"reason" text NOT NULL,
	"summary" integer,
	CONSTRAINT "eviction_log_session_to_seq_version_pk" PRIMARY KEY("session","to_seq","version")
);
--> statement-breakpoint
ALTER TABLE "context_ledger"."eviction_log" ADD CONSTRAINT "eviction_log_session_sessions_pk_fk" FOREIGN KEY ("session") REFERENCES "context_ledger"."sessions"("pk") ON DELETE no action ON UPDATE no action;