CREATE TABLE "patient_erasures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"counts" jsonb NOT NULL,
	"digests" jsonb NOT NULL,
	"pending_keys" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "personal_salt" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "personal_commitment" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "erasure_id" uuid;--> statement-breakpoint
ALTER TABLE "patient_erasures" ADD CONSTRAINT "patient_erasures_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "patient_erasures_org_created_idx" ON "patient_erasures" USING btree ("organization_id","created_at");