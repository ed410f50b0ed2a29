import type { Metadata } from "next";
import { Suspense } from "react";
import { BrandingPage } from "../../../features/branding/BrandingPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.brandingPage.pageTitle };
}

export default function Page() {
  // Which branding is being edited is in the URL (useSearchParams).
  return (
    <Suspense>
      <BrandingPage />
    </Suspense>
  );
}
