CREATE TABLE "ai_questions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"source" text NOT NULL,
	"question" text NOT NULL,
	"normalized_question" text NOT NULL,
	"answer" text NOT NULL,
	"answered" boolean NOT NULL,
	"confidence" double precision NOT NULL,
	"citations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_usage" (
	"organization_id" uuid NOT NULL,
	"period" text NOT NULL,
	"feature" text NOT NULL,
	"credits" integer DEFAULT 0 NOT NULL,
	"operations" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_usage_organization_id_period_feature_pk" PRIMARY KEY("organization_id","period","feature")
);
--> statement-breakpoint
ALTER TABLE "ai_questions" ADD CONSTRAINT "ai_questions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_questions" ADD CONSTRAINT "ai_questions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_usage" ADD CONSTRAINT "ai_usage_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_questions_organization_idx" ON "ai_questions" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "ai_questions_gaps_idx" ON "ai_questions" USING btree ("organization_id","normalized_question");