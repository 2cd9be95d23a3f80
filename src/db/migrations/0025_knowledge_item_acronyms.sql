-- Knowledge items are matched to a matter ("What's the status of the KPIs?") by their words as the
-- index stems them, an acronym's plural also as its singular (0024_acronym_plurals.sql): the index
-- follows that expression, or each item would be stemmed again on every question.
DROP INDEX "knowledge_items_text_search_idx";--> statement-breakpoint
CREATE INDEX "knowledge_items_text_search_idx" ON "knowledge_items" USING gin (kh_english_vector("text"));