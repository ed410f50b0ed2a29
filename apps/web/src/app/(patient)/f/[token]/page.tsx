import type { Metadata } from "next";
import { SmsForm } from "../../../../features/forms/SmsForm";
import { getPatientDictionary } from "../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.forms.smsFormPageTitle, referrer: "no-referrer" };
}

/** The link of an SMS form request (F1): `PUBLIC_WEB_URL/f/<token>`. */
export default async function SmsFormPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <SmsForm linkToken={token} />;
}
