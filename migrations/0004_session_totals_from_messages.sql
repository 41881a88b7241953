ALTER TABLE `sessions` DROP COLUMN `message_count`;--> statement-breakpoint
ALTER TABLE `sessions` DROP COLUMN `total_tokens`;