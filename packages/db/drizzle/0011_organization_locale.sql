ALTER TABLE "organizations" ADD COLUMN "locale" text DEFAULT 'de' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "time_zone" text DEFAULT 'Europe/Berlin' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "phone_country" text DEFAULT 'DE' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "signed_copy_days" integer DEFAULT 30 NOT NULL;