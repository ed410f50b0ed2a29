ALTER TABLE "form_requests" ADD COLUMN "institution_id" uuid;--> statement-breakpoint
ALTER TABLE "form_requests" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "form_requests" ADD CONSTRAINT "form_requests_institution_id_institutions_id_fk" FOREIGN KEY ("institution_id") REFERENCES "public"."institutions"("id") ON DELETE set null ON UPDATE no action;