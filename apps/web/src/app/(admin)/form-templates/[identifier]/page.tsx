import type { Metadata } from "next";
import { TemplateBuilder } from "../../../../features/form-templates/TemplateBuilder";
import { getDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.nav.formTemplates };
}

/** The form builder of one template. */
export default async function TemplateBuilderPage({ params }: { params: Promise<{ identifier: string }> }) {
  const { identifier } = await params;
  return <TemplateBuilder identifier={decodeURIComponent(identifier)} />;
}
