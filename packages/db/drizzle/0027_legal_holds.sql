CREATE TABLE "legal_holds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"patient_id" text,
	"rnummer" text,
	"phone" text,
	"reason" text NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_at" timestamp with time zone,
	"released_by_user_id" uuid,
	CONSTRAINT "legal_holds_selector_ck" CHECK ("legal_holds"."patient_id" is not null or "legal_holds"."rnummer" is not null or "legal_holds"."phone" is not null)
);
--> statement-breakpoint
ALTER TABLE "legal_holds" ADD CONSTRAINT "legal_holds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legal_holds" ADD CONSTRAINT "legal_holds_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legal_holds" ADD CONSTRAINT "legal_holds_released_by_user_id_users_id_fk" FOREIGN KEY ("released_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "legal_holds_org_created_idx" ON "legal_holds" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "legal_holds_active_patient_idx" ON "legal_holds" USING btree ("organization_id","patient_id") WHERE "legal_holds"."released_at" is null and "legal_holds"."patient_id" is not null;--> statement-breakpoint
CREATE INDEX "legal_holds_active_rnummer_idx" ON "legal_holds" USING btree ("organization_id","rnummer") WHERE "legal_holds"."released_at" is null and "legal_holds"."rnummer" is not null;--> statement-breakpoint
CREATE INDEX "legal_holds_active_phone_idx" ON "legal_holds" USING btree ("organization_id","phone") WHERE "legal_holds"."released_at" is null and "legal_holds"."phone" is not null;