ALTER TABLE "organizations" ADD COLUMN "session_audience" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "session_issuer" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "session_require_jti" boolean DEFAULT false NOT NULL;