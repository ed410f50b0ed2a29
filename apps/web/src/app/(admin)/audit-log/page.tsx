import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLogPage } from "../../../features/audit-log/AuditLogPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.auditLogPage.pageTitle };
}

export default function Page() {
  // The list reads its filters from the URL (useSearchParams).
  return (
    <Suspense>
      <AuditLogPage />
    </Suspense>
  );
}
