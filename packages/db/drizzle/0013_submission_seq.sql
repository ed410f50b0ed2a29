DROP INDEX "submissions_org_created_idx";--> statement-breakpoint
DROP INDEX "submissions_org_template_idx";--> statement-breakpoint
DROP INDEX "submissions_org_rnummer_idx";--> statement-breakpoint
ALTER TABLE "submissions" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "submissions_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "submissions_org_created_idx" ON "submissions" USING btree ("organization_id","created_at","seq");--> statement-breakpoint
CREATE INDEX "submissions_org_template_idx" ON "submissions" USING btree ("organization_id","template_identifier","created_at","seq");--> statement-breakpoint
CREATE INDEX "submissions_org_rnummer_idx" ON "submissions" USING btree ("organization_id","rnummer","created_at","seq");