CREATE TABLE "organization_seals" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"identity_enc" text NOT NULL,
	"fingerprint" text NOT NULL,
	"subject" text NOT NULL,
	"issuer" text NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"not_after" timestamp with time zone NOT NULL,
	"chain" jsonb NOT NULL,
	"uploaded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "sealed_content_sha256" text;--> statement-breakpoint
ALTER TABLE "organization_seals" ADD CONSTRAINT "organization_seals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "organization_seals_fingerprint_idx" ON "organization_seals" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "signature_requests_sealed_content_idx" ON "signature_requests" USING btree ("sealed_content_sha256");