CREATE TABLE `message_edits` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`actor` text NOT NULL,
	`reason` text,
	`at` integer NOT NULL,
	`body` text,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `message_edits_message` ON `message_edits` (`session`,`seq`,`id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `recheck` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `repeat_of` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `late` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `window_tokens` integer;--> statement-breakpoint
CREATE INDEX `messages_recheck` ON `messages` (`session`,`seq`) WHERE "messages"."recheck" = 1;--> statement-breakpoint
CREATE INDEX `messages_window_tokens` ON `messages` (`session`,`seq`,`tokens`,`window_tokens`) WHERE "messages"."window_tokens" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_count` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_tokens` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_first` integer;