-- Organization setting (issue 18): what a form.submitted webhook carries (native, fhir, both).
ALTER TABLE "organizations" ADD COLUMN "webhook_format" text DEFAULT 'native' NOT NULL;