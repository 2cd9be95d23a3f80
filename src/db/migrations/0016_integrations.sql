CREATE TABLE "import_files" (
	"id" uuid PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"sha256" text NOT NULL,
	"content" text,
	"format" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"video_id" uuid,
	"error" text,
	"error_line" integer,
	CONSTRAINT "import_files_status_check" CHECK ("import_files"."status" IN ('pending', 'created', 'duplicate', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "import_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"created_by" uuid,
	"channel_id" uuid,
	"visibility" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "import_jobs_status_check" CHECK ("import_jobs"."status" IN ('queued', 'running', 'completed')),
	CONSTRAINT "import_jobs_visibility_check" CHECK ("import_jobs"."visibility" IN ('private', 'public'))
);
--> statement-breakpoint
CREATE TABLE "integration_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"integration_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "integrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"display_url" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"url" text,
	"events" text[] NOT NULL,
	"description" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"last_failure_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integrations_kind_check" CHECK ("integrations"."kind" IN ('webhook', 'slack')),
	CONSTRAINT "integrations_slack_url_check" CHECK ("integrations"."kind" <> 'slack' OR "integrations"."url" IS NULL)
);
--> statement-breakpoint
ALTER TABLE "import_files" ADD CONSTRAINT "import_files_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_files_job_idx" ON "import_files" USING btree ("job_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "import_files_created_hash_idx" ON "import_files" USING btree ("organization_id","sha256") WHERE "import_files"."status" = 'created';--> statement-breakpoint
CREATE INDEX "import_jobs_organization_idx" ON "import_jobs" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "integration_deliveries_integration_idx" ON "integration_deliveries" USING btree ("integration_id","created_at");--> statement-breakpoint
CREATE INDEX "integration_deliveries_due_idx" ON "integration_deliveries" USING btree ("next_attempt_at") WHERE "integration_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "integrations_organization_idx" ON "integrations" USING btree ("organization_id","created_at");