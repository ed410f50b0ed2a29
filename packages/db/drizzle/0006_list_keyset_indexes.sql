DROP INDEX "submissions_org_created_idx";--> statement-breakpoint
DROP INDEX "submissions_org_template_idx";--> statement-breakpoint
CREATE INDEX "audit_log_org_actor_type_seq_idx" ON "audit_log" USING btree ("organization_id","actor_type","seq");--> statement-breakpoint
CREATE INDEX "submissions_org_rnummer_idx" ON "submissions" USING btree ("organization_id","rnummer","created_at","id");--> statement-breakpoint
CREATE INDEX "submissions_org_created_idx" ON "submissions" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "submissions_org_template_idx" ON "submissions" USING btree ("organization_id","template_identifier","created_at","id");