ALTER TABLE "form_requests" ADD COLUMN "identity_token_hash" text;--> statement-breakpoint
ALTER TABLE "form_uploads" ADD COLUMN "uploader_key" text;--> statement-breakpoint
ALTER TABLE "form_uploads" ADD COLUMN "deleting_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "form_uploads" ADD COLUMN "kept_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "form_uploads_uploader_idx" ON "form_uploads" USING btree ("uploader_key");--> statement-breakpoint
CREATE INDEX "form_uploads_sweep_idx" ON "form_uploads" USING btree ("created_at") WHERE "form_uploads"."kept_at" is null;