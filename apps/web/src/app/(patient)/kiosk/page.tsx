import type { Metadata } from "next";
import { KioskLocked } from "../../../features/kiosk/KioskLocked";
import { kioskOutcomes, type KioskOutcome } from "../../../features/kiosk/kiosk-device";
import { getPatientDictionary } from "../../../i18n/server";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getPatientDictionary();
  return { title: t.signing.kioskLockedTitle, referrer: "no-referrer" };
}

/** The locked screen of a desk device after signing, declining or inactivity. */
export default async function KioskLockedPage({ searchParams }: { searchParams: Promise<{ ended?: string }> }) {
  const { ended } = await searchParams;
  const outcome = kioskOutcomes.find((o) => o === ended) ?? null;
  return <KioskLocked outcome={outcome as KioskOutcome | null} />;
}
