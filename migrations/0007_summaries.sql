CREATE TABLE `summaries` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`uid` text NOT NULL,
	`replaces` integer,
	`regenerates` integer,
	`from_boundary` integer NOT NULL,
	`to_boundary` integer NOT NULL,
	`seqs` text NOT NULL,
	`message_count` integer NOT NULL,
	`body` text NOT NULL,
	`tokens` integer NOT NULL,
	`model` text,
	`prompt_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `summaries_session_uid` ON `summaries` (`session`,`uid`);--> statement-breakpoint
CREATE INDEX `summaries_session` ON `summaries` (`session`,`id`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `summary` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `limits` text;