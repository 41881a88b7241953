-- Branches (docs/design.md, "Branches"): a session may fork from another at a seq (`parent`, `fork_seq`,
-- `kind`, who, when and why); its conversation is the parent's up to and including `fork_seq`, then its own
-- rows. No message row is copied: a branch's own window state on the rows it inherits lives in
-- `branch_rows`, and the pin and edit logs record the log clock (`version`: `search_state.log_clock`, a
-- counter every fork bumps) so that a branch sees its ancestors' entries from before its fork only; so does
-- the eviction log (`clock`: its `version` orders one session's cuts). Every existing session is a root.
CREATE TABLE `branch_rows` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`seq` integer NOT NULL,
	`owner` integer NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	`kept` integer DEFAULT false NOT NULL,
	`recheck` integer DEFAULT false NOT NULL,
	`window_body` text,
	`window_tokens` integer,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `branch_rows_session_seq` ON `branch_rows` (`session`,`seq`);--> statement-breakpoint
CREATE INDEX `branch_rows_kept` ON `branch_rows` (`session`,`seq`) WHERE "branch_rows"."kept" = 1;--> statement-breakpoint
CREATE INDEX `branch_rows_recheck` ON `branch_rows` (`session`,`seq`) WHERE "branch_rows"."recheck" = 1;--> statement-breakpoint
CREATE INDEX `branch_rows_pinned` ON `branch_rows` (`session`,`seq`) WHERE "branch_rows"."pinned" = 1;--> statement-breakpoint
CREATE INDEX `branch_rows_owner` ON `branch_rows` (`owner`,`seq`);--> statement-breakpoint
ALTER TABLE `message_edits` ADD `version` integer;--> statement-breakpoint
ALTER TABLE `pin_events` ADD `version` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `parent` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_seq` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kind` text DEFAULT 'root' NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `forked_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_actor` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_reason` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_version` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_tokens` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_trim_point` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_pair_start` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_summary` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_summary_ended_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fork_summary_end_reason` text;--> statement-breakpoint
CREATE INDEX `sessions_children` ON `sessions` (`parent`,`fork_seq`);--> statement-breakpoint
ALTER TABLE `eviction_log` ADD `clock` integer;--> statement-breakpoint
-- The log clock: a counter every fork bumps and nothing takes back (a delete must not: an entry written
-- after a deleted fork would look older than the next one). Every existing session is a root: 0.
ALTER TABLE `search_state` ADD `log_clock` integer DEFAULT 0 NOT NULL;
