ALTER TABLE "messages" ADD COLUMN "revealable_body" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "revealed_at" timestamp with time zone;