-- Actor types in one word per concept (issue 22): new entries write embed_session and sms_recipient
-- where older ones wrote session and portal. Audit entries are hash-chained over actor_type and are
-- never rewritten; actor_kind reads both spellings in today's words for the staff filter and display.
DROP INDEX "audit_log_org_actor_type_seq_idx";--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_kind" text GENERATED ALWAYS AS (case "actor_type" when 'session' then 'embed_session' when 'portal' then 'sms_recipient' else "actor_type" end) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_log_org_actor_kind_seq_idx" ON "audit_log" USING btree ("organization_id","actor_kind","seq");