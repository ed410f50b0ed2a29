CREATE TABLE "public_embeds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"template_identifier" text NOT NULL,
	"code" text NOT NULL,
	"allowed_origins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "form_sessions" ADD COLUMN "public_embed_id" uuid;--> statement-breakpoint
ALTER TABLE "public_embeds" ADD CONSTRAINT "public_embeds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "public_embeds_code_uq" ON "public_embeds" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "public_embeds_org_template_uq" ON "public_embeds" USING btree ("organization_id","template_identifier");--> statement-breakpoint
ALTER TABLE "form_sessions" ADD CONSTRAINT "form_sessions_public_embed_id_public_embeds_id_fk" FOREIGN KEY ("public_embed_id") REFERENCES "public"."public_embeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "form_sessions_personal_idx" ON "form_sessions" USING btree ("organization_id","template_identifier","created_at","id") WHERE "form_sessions"."public_embed_id" is null;--> statement-breakpoint
CREATE INDEX "form_sessions_public_embed_idx" ON "form_sessions" USING btree ("public_embed_id") WHERE "form_sessions"."public_embed_id" is not null;