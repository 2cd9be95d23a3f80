CREATE TABLE "video_media" (
	"video_id" uuid PRIMARY KEY NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"container" text,
	"codec" text,
	"bytes" bigint NOT NULL,
	"duration_seconds" double precision,
	"sha256" text NOT NULL,
	"transcription_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "video_media_bytes_check" CHECK ("video_media"."bytes" > 0)
);
--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "transcript_status" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "transcript_error" text;--> statement-breakpoint
ALTER TABLE "video_media" ADD CONSTRAINT "video_media_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "videos" ADD CONSTRAINT "videos_transcript_status_check" CHECK ("videos"."transcript_status" IN ('none', 'queued', 'processing', 'ready', 'failed'));--> statement-breakpoint
UPDATE "videos" SET "transcript_status" = 'ready' WHERE "transcript" IS NOT NULL;
