import type { Metadata } from "next";
import { SubmissionDetailPage } from "../../../../features/submissions/SubmissionDetailPage";
import { getDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.submissionsPage.pageTitle };
}

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SubmissionDetailPage id={id} />;
}
