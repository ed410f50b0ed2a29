ALTER TABLE "signature_requests" ADD COLUMN "signing_language" text;--> statement-breakpoint
ALTER TABLE "signature_signers" ADD COLUMN "signing_language" text;