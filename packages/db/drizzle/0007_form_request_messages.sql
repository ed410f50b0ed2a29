ALTER TABLE "messages" ADD COLUMN "form_request_id" uuid;--> statement-breakpoint
CREATE INDEX "messages_org_form_request_idx" ON "messages" USING btree ("organization_id","form_request_id","created_at");--> statement-breakpoint
-- Link SMS sent before this column existed: the request names its (only) link message.
UPDATE "messages" SET "form_request_id" = "form_requests"."id" FROM "form_requests" WHERE "form_requests"."sms_message_id" = "messages"."id";
