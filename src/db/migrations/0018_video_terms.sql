CREATE TABLE "video_term_totals" (
	"video_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"occurrences" integer NOT NULL,
	"passages" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_terms" (
	"video_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"lexeme" text NOT NULL,
	"occurrences" integer NOT NULL,
	CONSTRAINT "video_terms_video_id_lexeme_pk" PRIMARY KEY("video_id","lexeme")
);
--> statement-breakpoint
ALTER TABLE "video_term_totals" ADD CONSTRAINT "video_term_totals_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_terms" ADD CONSTRAINT "video_terms_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_term_totals_organization_id_idx" ON "video_term_totals" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "video_terms_organization_lexeme_idx" ON "video_terms" USING btree ("organization_id","lexeme");--> statement-breakpoint
-- Transcripts stored before this migration: their words and passages counted as indexVideoTerms counts them.
INSERT INTO "video_terms" ("video_id", "organization_id", "lexeme", "occurrences")
SELECT s.video_id, s.organization_id, t.lexeme, sum(cardinality(t.positions))::int
FROM "transcript_segments" s CROSS JOIN unnest(to_tsvector('english', s.text)) t
GROUP BY s.video_id, s.organization_id, t.lexeme;
--> statement-breakpoint
INSERT INTO "video_term_totals" ("video_id", "organization_id", "occurrences", "passages")
SELECT c.video_id, c.organization_id,
  coalesce((SELECT sum(t.occurrences) FROM "video_terms" t WHERE t.video_id = c.video_id), 0)::int, count(*)::int
FROM "transcript_chunks" c GROUP BY c.video_id, c.organization_id;
