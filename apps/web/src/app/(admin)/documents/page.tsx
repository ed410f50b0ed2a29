import type { Metadata } from "next";
import { Suspense } from "react";
import { DocumentsPage } from "../../../features/documents/DocumentsPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.documentsPage.pageTitle };
}

export default function Page() {
  // The list reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <DocumentsPage />
    </Suspense>
  );
}
