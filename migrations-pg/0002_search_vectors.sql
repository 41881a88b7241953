ALTER TABLE "context_ledger"."messages" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS ("context_ledger"."search_vector"("body")) STORED;--> statement-breakpoint
ALTER TABLE "context_ledger"."summaries" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS ("context_ledger"."search_vector"("body")) STORED;--> statement-breakpoint
CREATE INDEX "messages_search" ON "context_ledger"."messages" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "summaries_search" ON "context_ledger"."summaries" USING gin ("search_vector");