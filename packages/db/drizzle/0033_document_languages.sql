ALTER TABLE "document_versions" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "documents_by_language" jsonb;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD COLUMN "pinned_document_id" uuid;--> statement-breakpoint
ALTER TABLE "signature_requests" ADD CONSTRAINT "signature_requests_pinned_document_id_documents_id_fk" FOREIGN KEY ("pinned_document_id") REFERENCES "public"."documents"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "signature_requests_pinned_document_idx" ON "signature_requests" USING btree ("organization_id","pinned_document_id") WHERE "signature_requests"."pinned_document_id" is not null;