DROP INDEX "audit_log_org_created_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_action_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_template_idx";--> statement-breakpoint
CREATE INDEX "audit_log_org_action_seq_idx" ON "audit_log" USING btree ("organization_id","action","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_org_template_seq_idx" ON "audit_log" USING btree ("organization_id","template_identifier","seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_org_action_template_seq_idx" ON "audit_log" USING btree ("organization_id","action","template_identifier","seq" DESC NULLS LAST);