-- The full-text index: a generated `search` vector on every searchable table, with a GIN index.
-- Each vector holds the text twice, stemmed (english: "running" → run) and unstemmed (simple:
-- for prefixes of whole words, "organi" → organization), weighted A (titles, names) > B
-- (descriptions) > C (transcripts, whose chunks name their speakers, and comments). Generated columns follow every
-- write in its own statement, so the index can never lag behind the data.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE FUNCTION kh_search_vector(body text, weight "char") RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(
    to_tsvector('english'::regconfig, coalesce(body, '')) || to_tsvector('simple'::regconfig, coalesce(body, '')),
    weight);
--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(title, 'A') || kh_search_vector(description, 'B')) STORED;
--> statement-breakpoint
CREATE INDEX "videos_search_idx" ON "videos" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "transcript_chunks" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(text, 'C')) STORED;
--> statement-breakpoint
CREATE INDEX "transcript_chunks_search_idx" ON "transcript_chunks" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "clips" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(title, 'A') || kh_search_vector(description, 'B')) STORED;
--> statement-breakpoint
CREATE INDEX "clips_search_idx" ON "clips" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "comments" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(body, 'C')) STORED;
--> statement-breakpoint
CREATE INDEX "comments_search_idx" ON "comments" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(name, 'A') || kh_search_vector(description, 'B')) STORED;
--> statement-breakpoint
CREATE INDEX "channels_search_idx" ON "channels" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(name, 'A') || kh_search_vector(description, 'B')) STORED;
--> statement-breakpoint
CREATE INDEX "series_search_idx" ON "series" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(name, 'A') || kh_search_vector(description, 'B')) STORED;
--> statement-breakpoint
CREATE INDEX "collections_search_idx" ON "collections" USING gin ("search");
--> statement-breakpoint
-- Suggestions and typo tolerance: trigram indexes on the short texts people type the start of.
CREATE INDEX "videos_title_trgm_idx" ON "videos" USING gin ("title" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "speakers_name_trgm_idx" ON "speakers" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "channels_name_trgm_idx" ON "channels" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "series_name_trgm_idx" ON "series" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "collections_name_trgm_idx" ON "collections" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
-- Segments are not searched on their own (no GIN index): their vector pinpoints, within the
-- videos a search found, the moments where the words were said.
ALTER TABLE "transcript_segments" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (kh_search_vector(text, 'C')) STORED;
--> statement-breakpoint
-- Escapes text for HTML before ts_headline wraps matches in <mark>, so snippets are safe to render.
CREATE FUNCTION kh_html_escape(body text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN replace(replace(replace(replace(replace(body, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;');
