import type { Metadata } from "next";
import { SigningFlow } from "../../../../features/signing/SigningFlow";
import { getPatientDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.signing.pageTitle, referrer: "no-referrer" };
}

/** The signing link from A1 (`PUBLIC_WEB_URL/sign/<token>`). */
export default async function SignByLinkPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <SigningFlow credential={{ token }} />;
}
