ALTER TABLE "public_embeds" ADD COLUMN "visitor_mode" text DEFAULT 'fresh' NOT NULL;--> statement-breakpoint
ALTER TABLE "public_embeds" ADD COLUMN "idle_minutes" integer DEFAULT 5 NOT NULL;