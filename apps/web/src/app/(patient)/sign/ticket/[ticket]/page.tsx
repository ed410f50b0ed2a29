import type { Metadata } from "next";
import { SigningFlow } from "../../../../../features/signing/SigningFlow";
import { getPatientDictionary } from "../../../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.signing.pageTitle, referrer: "no-referrer" };
}

/**
 * The A4 redirect (`PUBLIC_WEB_URL/sign/ticket/<ticket>`): the one-time ticket is exchanged for a
 * signing session once; the flow then continues as with a signing link.
 */
export default async function SignByTicketPage({ params }: { params: Promise<{ ticket: string }> }) {
  const { ticket } = await params;
  return <SigningFlow credential={{ ticket }} />;
}
