import type { Metadata } from "next";
import { Suspense } from "react";
import { WebhooksPage } from "../../../features/webhooks/WebhooksPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.webhooksPage.pageTitle };
}

export default function Page() {
  // The log reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <WebhooksPage />
    </Suspense>
  );
}
