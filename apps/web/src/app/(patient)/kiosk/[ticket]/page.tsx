import type { Metadata } from "next";
import { KioskSigning } from "../../../../features/kiosk/KioskSigning";
import { getPatientDictionary } from "../../../../i18n/server";

// Rendered per request: the answer is `Cache-Control: no-store`, so neither a cache nor the
// back-forward cache keeps a patient's signing page.
export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.signing.pageTitle, referrer: "no-referrer" };
}

/** Signing at the desk (`/kiosk/<ticket>`): the one-time ticket "Sign at this device" minted. */
export default async function KioskSigningPage({ params }: { params: Promise<{ ticket: string }> }) {
  const { ticket } = await params;
  return <KioskSigning ticket={ticket} />;
}
