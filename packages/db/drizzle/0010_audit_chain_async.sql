CREATE SEQUENCE "public"."audit_log_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
-- Hand-written: the audit_log_seq default draws through this function, which gives the transaction
-- its xid before it takes a number. The chainer's watermark (apps/api/src/core/audit/chain.ts) only
-- holds if every transaction that holds a seq is visible in pg_current_snapshot() while it runs.
CREATE FUNCTION "audit_log_next_seq"() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_current_xact_id();
  RETURN nextval('audit_log_seq');
END
$$;--> statement-breakpoint
-- New numbers continue above every existing per-organization seq, so chain order stays seq order.
SELECT setval('audit_log_seq', (SELECT coalesce(max("seq"), 0) + 1 FROM "audit_log"), false);--> statement-breakpoint
CREATE TABLE "audit_chain_heads" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"chain_pos" bigint NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"chained_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "seq" SET DEFAULT audit_log_next_seq();--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "prev_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "chain_pos" bigint;--> statement-breakpoint
ALTER TABLE "audit_chain_heads" ADD CONSTRAINT "audit_chain_heads_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_org_chain_pos_uq" ON "audit_log" USING btree ("organization_id","chain_pos");--> statement-breakpoint
CREATE INDEX "audit_log_unchained_idx" ON "audit_log" USING btree ("organization_id","seq") WHERE "audit_log"."chain_pos" is null;--> statement-breakpoint
-- Hand-written: entries written before 0010 were chained in seq order (1, 2, 3 … per organization)
-- with the same hash, so they are the chained prefix as they stand, and their last entry is the head.
UPDATE "audit_log" SET "chain_pos" = "seq";--> statement-breakpoint
INSERT INTO "audit_chain_heads" ("organization_id", "chain_pos", "seq", "hash")
SELECT DISTINCT ON ("organization_id") "organization_id", "chain_pos", "seq", "hash" FROM "audit_log" ORDER BY "organization_id", "chain_pos" DESC;
