CREATE TABLE `messages` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`seq` integer NOT NULL,
	`uid` text NOT NULL,
	`role` text NOT NULL,
	`body` text NOT NULL,
	`tokens` integer NOT NULL,
	`cum_tokens` integer NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	`kept` integer DEFAULT false NOT NULL,
	`plain_user` integer NOT NULL,
	`trim_point` integer NOT NULL,
	`pair_start` integer NOT NULL,
	`has_tool_use` integer NOT NULL,
	`has_tool_result` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_session_seq` ON `messages` (`session`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_session_uid` ON `messages` (`session`,`uid`);--> statement-breakpoint
CREATE INDEX `messages_session_cum` ON `messages` (`session`,`cum_tokens`,`seq`);--> statement-breakpoint
CREATE INDEX `messages_pinned` ON `messages` (`session`,`seq`) WHERE "messages"."pinned" = 1;--> statement-breakpoint
CREATE INDEX `messages_kept` ON `messages` (`session`,`seq`) WHERE "messages"."kept" = 1;--> statement-breakpoint
CREATE INDEX `messages_trim_points` ON `messages` (`session`,`seq`) WHERE "messages"."trim_point" = 1;--> statement-breakpoint
CREATE INDEX `messages_pair_starts` ON `messages` (`session`,`seq`) WHERE "messages"."pair_start" = 1;--> statement-breakpoint
CREATE TABLE `pin_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`seq` integer NOT NULL,
	`action` text NOT NULL,
	`actor` text NOT NULL,
	`reason` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pin_events_message` ON `pin_events` (`session`,`seq`,`id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`pk` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`metadata` text,
	`boundary` integer DEFAULT 0 NOT NULL,
	`message_count` integer DEFAULT 0 NOT NULL,
	`total_tokens` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_id_unique` ON `sessions` (`id`);--> statement-breakpoint
CREATE TABLE `tool_calls` (
	`id` integer PRIMARY KEY NOT NULL,
	`session` integer NOT NULL,
	`tool_use_id` text NOT NULL,
	`name` text NOT NULL,
	`use_seq` integer NOT NULL,
	`result_seq` integer,
	`status` text,
	FOREIGN KEY (`session`) REFERENCES `sessions`(`pk`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tool_calls_use` ON `tool_calls` (`session`,`use_seq`);--> statement-breakpoint
CREATE INDEX `tool_calls_result` ON `tool_calls` (`session`,`result_seq`);--> statement-breakpoint
CREATE INDEX `tool_calls_open` ON `tool_calls` (`session`,`tool_use_id`) WHERE "tool_calls"."result_seq" IS NULL;