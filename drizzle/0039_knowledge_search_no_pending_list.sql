-- Words go straight into the index from now on; what the pending list holds is merged once here
-- (cheaper than rebuilding the index). ADR 086.
ALTER INDEX "knowledge_chunks_search_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('knowledge_chunks_search_idx');
