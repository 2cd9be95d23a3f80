CREATE TABLE "chunk_embeddings" (
	"chunk_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"video_id" uuid NOT NULL,
	"model" text NOT NULL,
	"embedding" real[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ADD CONSTRAINT "chunk_embeddings_chunk_id_transcript_chunks_id_fk" FOREIGN KEY ("chunk_id") REFERENCES "public"."transcript_chunks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ADD CONSTRAINT "chunk_embeddings_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_embeddings_video_idx" ON "chunk_embeddings" USING btree ("video_id");