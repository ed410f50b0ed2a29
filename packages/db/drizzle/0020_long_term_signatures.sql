ALTER TABLE "signature_requests" ADD COLUMN "seal_level" text;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "timestamped_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "timestamp_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "signature_requests_timestamp_expiry_idx" ON "signature_requests" USING btree ("timestamp_expires_at") WHERE "signature_requests"."timestamp_expires_at" is not null;