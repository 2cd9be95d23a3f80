CREATE TABLE "knowledge_items" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"video_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"text" text NOT NULL,
	"speaker" text,
	"start" double precision NOT NULL,
	"end" double precision NOT NULL,
	"owner" text,
	"due_date" date,
	"answered" boolean,
	"answer" jsonb,
	"subject" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topics" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key" text NOT NULL,
	"keywords" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_knowledge" (
	"video_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"summary" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"chapters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"engine" text,
	"error" text,
	"requested_at" timestamp with time zone NOT NULL,
	"extracted_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "video_topics" (
	"topic_id" uuid NOT NULL,
	"video_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"mentions" integer NOT NULL,
	"score" double precision NOT NULL,
	"first_start" double precision NOT NULL,
	CONSTRAINT "video_topics_topic_id_video_id_pk" PRIMARY KEY("topic_id","video_id")
);
--> statement-breakpoint
ALTER TABLE "knowledge_items" ADD CONSTRAINT "knowledge_items_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_items" ADD CONSTRAINT "knowledge_items_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topics" ADD CONSTRAINT "topics_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_knowledge" ADD CONSTRAINT "video_knowledge_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_knowledge" ADD CONSTRAINT "video_knowledge_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_topics" ADD CONSTRAINT "video_topics_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_topics" ADD CONSTRAINT "video_topics_video_id_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_items_organization_kind_idx" ON "knowledge_items" USING btree ("organization_id","kind");--> statement-breakpoint
CREATE INDEX "knowledge_items_video_idx" ON "knowledge_items" USING btree ("video_id","start");--> statement-breakpoint
CREATE UNIQUE INDEX "topics_organization_key_key" ON "topics" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "video_knowledge_organization_idx" ON "video_knowledge" USING btree ("organization_id","status");--> statement-breakpoint
CREATE INDEX "video_topics_video_idx" ON "video_topics" USING btree ("video_id");--> statement-breakpoint
CREATE INDEX "video_topics_organization_idx" ON "video_topics" USING btree ("organization_id","topic_id");--> statement-breakpoint
CREATE INDEX "topics_name_trgm_idx" ON "topics" USING gin ("name" gin_trgm_ops);
