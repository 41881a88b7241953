ALTER TABLE `messages` ADD `recheck` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `window_tokens` integer;--> statement-breakpoint
CREATE INDEX `messages_recheck` ON `messages` (`session`,`seq`) WHERE "messages"."recheck" = 1;--> statement-breakpoint
CREATE INDEX `messages_window_tokens` ON `messages` (`session`,`seq`,`tokens`,`window_tokens`) WHERE "messages"."window_tokens" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_count` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_tokens` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `kept_first` integer;