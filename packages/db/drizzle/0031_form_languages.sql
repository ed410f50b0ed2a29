ALTER TABLE "templates" ADD COLUMN "default_language" text DEFAULT 'de' NOT NULL;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "translations" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "drafts" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "template_language" text;--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "template_translations" jsonb;--> statement-breakpoint
-- Existing templates were written in the language of their organization's outputs (its `locale`).
UPDATE "templates" SET "default_language" = "organizations"."locale" FROM "organizations" WHERE "organizations"."id" = "templates"."organization_id";
