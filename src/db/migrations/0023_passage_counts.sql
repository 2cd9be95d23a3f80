DROP INDEX "video_terms_organization_lexeme_idx";--> statement-breakpoint
ALTER TABLE "video_term_totals" ADD COLUMN "passage_words" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "video_terms" ADD COLUMN "passages" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Transcripts stored before this migration: in how many passages each word stands, and how many
-- words the passages hold, counted as indexVideoTerms counts them (src/modules/search/video-terms.ts).
INSERT INTO "video_terms" ("video_id", "organization_id", "lexeme", "occurrences", "passages")
SELECT c.video_id, c.organization_id, l.lexeme, 0, count(*)::int
FROM "transcript_chunks" c CROSS JOIN unnest(tsvector_to_array(to_tsvector('english', c.text))) AS l(lexeme)
GROUP BY c.video_id, c.organization_id, l.lexeme
ON CONFLICT ("video_id", "lexeme") DO UPDATE SET "passages" = excluded."passages";
--> statement-breakpoint
UPDATE "video_term_totals" t SET "passage_words" = w.words
FROM (SELECT video_id, sum(word_count)::int AS words FROM "transcript_chunks" GROUP BY video_id) w
WHERE w.video_id = t.video_id;
--> statement-breakpoint
CREATE INDEX "video_terms_organization_lexeme_idx" ON "video_terms" USING btree ("organization_id","lexeme","occurrences","video_id","passages");
