-- "What's the status of search v2?" reads the knowledge items whose words say the matter
-- (knowledge-lists.ts): without an index, every item of the scope is stemmed on each question
-- (about 250 ms for the 28k items of 1,000 meetings; 0.2 ms with it).
CREATE INDEX "knowledge_items_text_search_idx" ON "knowledge_items" USING gin (to_tsvector('english', "text"));