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
ALTER TABLE `messages` ADD `repeat_of` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `late` integer DEFAULT false NOT NULL;