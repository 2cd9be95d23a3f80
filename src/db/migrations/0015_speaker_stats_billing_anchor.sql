CREATE TABLE "video_speaker_stats" (
	"video_id" uuid NOT NULL,
	"speaker_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"talk_seconds" double precision NOT NULL,
	"word_count" integer NOT NULL,
	"turns" integer NOT NULL,
	"longest_monologue_seconds" double precision NOT NULL,
	"monologue_seconds" double precision NOT NULL,
	"question_count" integer NOT NULL,
	"interruptions" integer NOT NULL,
	"patience_seconds" double precision NOT NULL,
	"patience_count" integer NOT NULL,
	CONSTRAINT "video_speaker_stats_video_id_speaker_id_pk" PRIMARY KEY("video_id","speaker_id")
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "billing_anchor" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "video_speaker_stats" ADD CONSTRAINT "video_speaker_stats_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_speaker_stats" ADD CONSTRAINT "video_speaker_stats_speaker_id_speakers_id_fk" FOREIGN KEY ("speaker_id") REFERENCES "public"."speakers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_speaker_stats_organization_speaker_idx" ON "video_speaker_stats" USING btree ("organization_id","speaker_id");