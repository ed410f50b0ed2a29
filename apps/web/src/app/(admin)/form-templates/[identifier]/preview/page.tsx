import type { Metadata } from "next";
import { TemplatePreview } from "../../../../../features/form-templates/TemplatePreview";
import { getDictionary } from "../../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.formTemplates.preview.heading };
}

/** Staff: any template of the organization, rendered as patients see it, without submitting. */
export default async function TemplatePreviewPage({ params }: { params: Promise<{ identifier: string }> }) {
  const { identifier } = await params;
  return <TemplatePreview identifier={decodeURIComponent(identifier)} />;
}
