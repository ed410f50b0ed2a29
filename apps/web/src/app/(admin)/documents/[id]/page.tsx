import type { Metadata } from "next";
import { Suspense } from "react";
import { DocumentDetailPage } from "../../../../features/documents/DocumentDetailPage";
import { getDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.documentsPage.pageTitle };
}

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The page reads `?created=1` (useSearchParams).
  return (
    <Suspense>
      <DocumentDetailPage id={id} />
    </Suspense>
  );
}
