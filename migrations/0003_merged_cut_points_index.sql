DROP INDEX `messages_trim_points`;--> statement-breakpoint
DROP INDEX `messages_pair_starts`;--> statement-breakpoint
CREATE INDEX `messages_cut_points` ON `messages` (`session`,`seq`,`trim_point`,`pair_start`,`plain_user`) WHERE "messages"."trim_point" = 1 OR "messages"."pair_start" = 1;