import type { Metadata } from "next";
import { Suspense } from "react";
import { TemplatesPage } from "../../../features/form-templates/TemplatesPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.nav.formTemplates };
}

export default function FormTemplatesPage() {
  // The list reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <TemplatesPage />
    </Suspense>
  );
}
