import type { Metadata } from "next";
import { Suspense } from "react";
import { FhirDeliveriesPage } from "../../../features/fhir-push/FhirDeliveriesPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.fhirPush.pageTitle };
}

export default function Page() {
  // The log reads its status filter from the URL (useSearchParams).
  return (
    <Suspense>
      <FhirDeliveriesPage />
    </Suspense>
  );
}
