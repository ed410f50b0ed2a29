ALTER TABLE "documents" ADD COLUMN "kdl_type" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "confidentiality" text DEFAULT 'N' NOT NULL;