import type { Metadata } from "next";
import { SignatureRequestDetailPage } from "../../../../features/signature-requests/SignatureRequestDetailPage";
import { getDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.signatureRequestsPage.detailTitle };
}

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SignatureRequestDetailPage id={id} />;
}
