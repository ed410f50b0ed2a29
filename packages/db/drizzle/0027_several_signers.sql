CREATE TABLE "signature_signers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"signature_request_id" uuid NOT NULL,
	"role" text NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"required" boolean DEFAULT true NOT NULL,
	"staff_user_id" uuid,
	"name" text,
	"token_hash" text,
	"token_enc" text,
	"phone" text,
	"status" text NOT NULL,
	"activated_at" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"signed_at" timestamp with time zone,
	"signature_method" text,
	"signature_image_key" text,
	"typed_name" text,
	"ip" text,
	"user_agent" text,
	"declined_at" timestamp with time zone,
	"decline_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "signing_order" text DEFAULT 'sequential' NOT NULL;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "declined_role" text;--> statement-breakpoint
ALTER TABLE "signing_credentials" ADD COLUMN "signer_id" uuid;--> statement-breakpoint
ALTER TABLE "signature_signers" ADD CONSTRAINT "signature_signers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signature_signers" ADD CONSTRAINT "signature_signers_signature_request_id_signature_requests_id_fk" FOREIGN KEY ("signature_request_id") REFERENCES "public"."signature_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signature_signers" ADD CONSTRAINT "signature_signers_staff_user_id_users_id_fk" FOREIGN KEY ("staff_user_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "signature_signers_request_role_uq" ON "signature_signers" USING btree ("signature_request_id","role");--> statement-breakpoint
CREATE UNIQUE INDEX "signature_signers_token_uq" ON "signature_signers" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "signature_signers_org_request_idx" ON "signature_signers" USING btree ("organization_id","signature_request_id","position");--> statement-breakpoint
CREATE INDEX "signature_signers_org_staff_idx" ON "signature_signers" USING btree ("organization_id","staff_user_id","status");