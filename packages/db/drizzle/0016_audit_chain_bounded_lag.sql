CREATE TABLE "audit_chain_gaps" (
	"organization_id" uuid NOT NULL,
	"xact_id" bigint NOT NULL,
	"through_seq" bigint NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_chain_gaps_organization_id_xact_id_pk" PRIMARY KEY("organization_id","xact_id")
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "xact_id" bigint;--> statement-breakpoint
ALTER TABLE "audit_chain_gaps" ADD CONSTRAINT "audit_chain_gaps_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written: the default is set after the column is added (above, without it), so existing entries
-- keep a null xact_id and the table is not rewritten; a volatile default in ADD COLUMN would give every
-- existing row the migration's own xid. Existing entries are all chained already (migration 0010).
ALTER TABLE "audit_log" ALTER COLUMN "xact_id" SET DEFAULT (pg_current_xact_id()::text)::bigint;
