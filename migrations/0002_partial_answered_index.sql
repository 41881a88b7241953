DROP INDEX `tool_calls_result`;--> statement-breakpoint
CREATE INDEX `tool_calls_answered` ON `tool_calls` (`session`,`result_seq`) WHERE "tool_calls"."result_seq" IS NOT NULL;