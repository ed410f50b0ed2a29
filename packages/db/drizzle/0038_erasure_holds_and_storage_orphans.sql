CREATE TABLE "storage_orphans" (
	"key" text PRIMARY KEY NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"deletable" boolean NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "storage_reconciliations" (
	"id" text PRIMARY KEY NOT NULL,
	"next_run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_started_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone,
	"last_result" jsonb,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "legal_holds" DROP CONSTRAINT "legal_holds_selector_ck";--> statement-breakpoint
ALTER TABLE "legal_holds" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "legal_holds" ADD CONSTRAINT "legal_holds_selector_ck" CHECK ("legal_holds"."patient_id" is not null or "legal_holds"."rnummer" is not null or "legal_holds"."phone" is not null or "legal_holds"."erased_at" is not null);