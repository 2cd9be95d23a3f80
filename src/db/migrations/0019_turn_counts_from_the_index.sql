DROP INDEX "video_terms_organization_lexeme_idx";--> statement-breakpoint
CREATE INDEX "video_terms_organization_lexeme_idx" ON "video_terms" USING btree ("organization_id","lexeme","occurrences");--> statement-breakpoint
-- A turn's vector keeps its two halves apart by weight: the words stemmed (english) weigh C, the
-- words as written (simple) weigh D. Matching ignores weights, so every search finds what it
-- found; what changes is that moments and QA count a turn's words from the stored vector
-- (`ts_filter` by weight) instead of stemming its text again on every read.
CREATE FUNCTION kh_turn_vector(body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('english'::regconfig, coalesce(body, '')), 'C')
    || setweight(to_tsvector('simple'::regconfig, coalesce(body, '')), 'D');
--> statement-breakpoint
ALTER TABLE "transcript_segments" DROP COLUMN "search";
--> statement-breakpoint
ALTER TABLE "transcript_segments" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (kh_turn_vector(text)) STORED;
