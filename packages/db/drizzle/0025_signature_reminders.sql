CREATE TABLE "signature_notices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"signature_request_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"signer_id" uuid,
	"sequence" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"channel" text,
	"message_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp with time zone,
	CONSTRAINT "signature_notices_once_uq" UNIQUE NULLS NOT DISTINCT("signature_request_id","kind","signer_id","sequence")
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "signature_reminder_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "patient_phone" text;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "reminder_days" integer;--> statement-breakpoint
ALTER TABLE "signature_notices" ADD CONSTRAINT "signature_notices_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signature_notices" ADD CONSTRAINT "signature_notices_signature_request_id_signature_requests_id_fk" FOREIGN KEY ("signature_request_id") REFERENCES "public"."signature_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "signature_notices_org_request_idx" ON "signature_notices" USING btree ("organization_id","signature_request_id");