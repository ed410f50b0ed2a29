DROP INDEX "signature_requests_org_patient_idx";--> statement-breakpoint
DROP INDEX "signature_requests_org_document_idx";--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "seal_failed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "audit_log_org_signature_seq_idx" ON "audit_log" USING btree ("organization_id",("metadata"->>'signatureId'),"seq");--> statement-breakpoint
CREATE INDEX "institution_branding_org_updated_idx" ON "institution_branding" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_created_idx" ON "signature_requests" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_status_idx" ON "signature_requests" USING btree ("organization_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_institution_idx" ON "signature_requests" USING btree ("organization_id","institution_external_id","created_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_visibility_idx" ON "signature_requests" USING btree ("organization_id","visibility","created_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_patient_idx" ON "signature_requests" USING btree ("organization_id","patient_id","created_at","id");--> statement-breakpoint
CREATE INDEX "signature_requests_org_document_idx" ON "signature_requests" USING btree ("organization_id","document_id","created_at","id");