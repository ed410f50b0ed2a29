import type { Metadata } from "next";
import { VerifyPage } from "../../../features/verify/VerifyPage";
import { getPatientDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.verify.pageTitle };
}

/** Anyone checks a sealed PDF: no login, nothing stored. */
export default function VerifyRoute() {
  return <VerifyPage />;
}
