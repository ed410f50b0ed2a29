import type { Metadata } from "next";
import { Suspense } from "react";
import { SubmissionsPage } from "../../../features/submissions/SubmissionsPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.submissionsPage.pageTitle };
}

export default function Page() {
  // The list reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <SubmissionsPage />
    </Suspense>
  );
}
