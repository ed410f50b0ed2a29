DROP INDEX "audit_log_org_created_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_action_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_template_idx";--> statement-breakpoint
DROP INDEX "templates_org_updated_idx";--> statement-breakpoint
DROP INDEX "form_requests_org_created_idx";--> statement-breakpoint
DROP INDEX "messages_org_created_idx";--> statement-breakpoint
DROP INDEX "otp_challenges_request_idx";--> statement-breakpoint
DROP INDEX "submissions_org_created_idx";--> statement-breakpoint
DROP INDEX "submissions_org_template_idx";--> statement-breakpoint
DROP INDEX "webhook_attempts_org_created_idx";--> statement-breakpoint
DROP INDEX "webhook_attempts_org_event_idx";--> statement-breakpoint
DROP INDEX "webhook_attempts_org_template_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_org_created_idx";--> statement-breakpoint
DROP INDEX "documents_org_created_idx";--> statement-breakpoint
DROP INDEX "signature_requests_org_patient_idx";--> statement-breakpoint
CREATE INDEX "audit_log_org_action_seq_idx" ON "audit_log" USING btree ("organization_id","action","seq");--> statement-breakpoint
CREATE INDEX "audit_log_org_template_seq_idx" ON "audit_log" USING btree ("organization_id","template_identifier","seq");--> statement-breakpoint
CREATE INDEX "audit_log_org_action_template_seq_idx" ON "audit_log" USING btree ("organization_id","action","template_identifier","seq");--> statement-breakpoint
CREATE INDEX "templates_org_updated_idx" ON "templates" USING btree ("organization_id","updated_at");--> statement-breakpoint
CREATE INDEX "form_requests_org_created_idx" ON "form_requests" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_org_created_idx" ON "messages" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "otp_challenges_request_idx" ON "otp_challenges" USING btree ("form_request_id","created_at");--> statement-breakpoint
CREATE INDEX "submissions_org_created_idx" ON "submissions" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "submissions_org_template_idx" ON "submissions" USING btree ("organization_id","template_identifier","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_org_created_idx" ON "webhook_attempts" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_org_event_idx" ON "webhook_attempts" USING btree ("organization_id","event_type","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_org_template_idx" ON "webhook_attempts" USING btree ("organization_id","template_identifier","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_org_created_idx" ON "webhook_deliveries" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "documents_org_created_idx" ON "documents" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "signature_requests_org_patient_idx" ON "signature_requests" USING btree ("organization_id","patient_id","created_at");