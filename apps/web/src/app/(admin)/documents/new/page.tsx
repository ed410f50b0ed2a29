import type { Metadata } from "next";
import { NewDocumentPage } from "../../../../features/documents/NewDocumentPage";
import { getDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.documentsPage.newTitle };
}

export default function Page() {
  return <NewDocumentPage />;
}
