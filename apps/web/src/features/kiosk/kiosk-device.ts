import type { Branding } from "@clinsign/contracts";
import { forgetKeptPage } from "../patient/offline/service-worker";
import { forgetStoredSignings } from "../signing/session";

/**
 * Signing at the desk, on the device's side: the clinic's brand for the locked screen (the one
 * thing kept between patients: the organization's name and colours, never the patient's), and
 * locking, which forgets everything the signing page stored and leaves for the locked screen
 * with `location.replace`, so the history entry of the signing page is gone and the back button
 * cannot return to it.
 */

const BRAND_KEY = "clinsign.kiosk.brand";

/** How long the signing page waits without a touch or key before it locks (2 minutes). */
export const KIOSK_IDLE_MS = 120_000;
/** The last seconds of that wait, shown as a warning. */
export const KIOSK_IDLE_WARNING_MS = 20_000;

export type KioskOutcome = "signed" | "declined" | "ended" | "timeout";
export const kioskOutcomes: readonly KioskOutcome[] = ["signed", "declined", "ended", "timeout"];

export interface KioskBrand {
  organizationName: string | null;
  branding: Branding | null;
}

export function rememberKioskBrand(brand: KioskBrand): void {
  try {
    window.sessionStorage.setItem(BRAND_KEY, JSON.stringify(brand));
  } catch {
    // Without storage the locked screen shows the product's brand.
  }
}

export function kioskBrand(): KioskBrand | null {
  try {
    const raw = window.sessionStorage.getItem(BRAND_KEY);
    const parsed = raw ? (JSON.parse(raw) as KioskBrand) : null;
    return parsed && typeof parsed === "object" ? parsed : null;
  } catch {
    return null;
  }
}

/** The locked screen's path; the outcome only picks its thank-you line. */
export const lockedKioskPath = (outcome?: KioskOutcome) => (outcome ? `/kiosk?ended=${outcome}` : "/kiosk");

/**
 * Forgets the signing page's storage and its kept copy (public/sw.js), and replaces this history
 * entry with the locked screen.
 */
export function lockKiosk(outcome: KioskOutcome): void {
  forgetStoredSignings();
  void forgetKeptPage().finally(() => window.location.replace(lockedKioskPath(outcome)));
}
