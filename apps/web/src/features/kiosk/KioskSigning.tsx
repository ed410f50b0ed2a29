"use client";

import { LiveRegion, Notice } from "@clinsign/ui";
import { useEffect, useMemo, useRef, useState } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { forgetStoredSignings } from "../signing/session";
import { SigningFlow, type KioskHooks } from "../signing/SigningFlow";
import { KIOSK_IDLE_MS, KIOSK_IDLE_WARNING_MS, lockKiosk, rememberKioskBrand } from "./kiosk-device";
import { KioskLocked } from "./KioskLocked";
import styles from "./kiosk.module.css";

const ACTIVITY_EVENTS = ["pointerdown", "keydown", "touchstart", "input", "scroll", "wheel"] as const;

/**
 * The signing page at the desk (`/kiosk/<ticket>`, from "Sign at this device"): the usual signing
 * flow for the one request, which locks the device when the patient signs, declines, or leaves it
 * untouched for two minutes (a warning shows in the last twenty seconds). Signed without a
 * network, the device locks in place (a new page cannot load offline): the signing's state goes,
 * and the locked screen sends the signature it keeps once the network returns.
 */
export function KioskSigning({ ticket }: { ticket: string }) {
  const { t } = usePatientI18n();
  const [idleLeft, setIdleLeft] = useState<number | null>(null);
  const [lockedHere, setLockedHere] = useState(false);
  const locked = useRef(false);
  const hooks = useMemo<KioskHooks>(
    () => ({
      onBranding: (organizationName, branding) => rememberKioskBrand({ organizationName, branding }),
      onFinished: (outcome) => {
        if (locked.current) return;
        locked.current = true;
        if (outcome !== "held") return lockKiosk(outcome);
        forgetStoredSignings();
        setLockedHere(true);
      },
    }),
    [],
  );

  useEffect(() => {
    let lastActivity = Date.now();
    const onActivity = () => {
      lastActivity = Date.now();
      setIdleLeft(null);
    };
    for (const name of ACTIVITY_EVENTS) window.addEventListener(name, onActivity, { passive: true, capture: true });
    const timer = window.setInterval(() => {
      const left = KIOSK_IDLE_MS - (Date.now() - lastActivity);
      if (left <= 0) {
        if (!locked.current) {
          locked.current = true;
          lockKiosk("timeout");
        }
      } else setIdleLeft(left <= KIOSK_IDLE_WARNING_MS ? Math.ceil(left / 1000) : null);
    }, 1000);
    return () => {
      window.clearInterval(timer);
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, onActivity, { capture: true });
    };
  }, []);

  if (lockedHere) return <KioskLocked outcome="held" />;
  return (
    <>
      {idleLeft !== null ? (
        <LiveRegion className={styles.idleWarning}>
          <Notice tone="warning">{format(t.signing.kioskIdleWarning, { seconds: String(idleLeft) })}</Notice>
        </LiveRegion>
      ) : null}
      <SigningFlow credential={{ ticket }} kiosk={hooks} />
    </>
  );
}
