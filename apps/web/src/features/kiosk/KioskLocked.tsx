"use client";

import { useEffect, useState } from "react";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { LockIcon } from "../patient/icons";
import { PatientShell } from "../patient/PatientShell";
import { StatusCard } from "../patient/StatusCard";
import { forgetStoredSignings } from "../signing/session";
import { forgetIdleKeys } from "../patient/offline/held";
import { useHeldAtDesk, type HeldAtDesk } from "./held-at-desk";
import { kioskBrand, lockKiosk, type KioskBrand, type KioskOutcome } from "./kiosk-device";
import styles from "./kiosk.module.css";

/**
 * The locked screen of a desk device: the clinic's brand, "please hand the device back", and the
 * staff sign-in. Nothing of the patient: no name, document or id (the URL carries only how the
 * signing ended). It also forgets any signing storage, should a page have closed before it could,
 * and sends a signature the last patient made offline once the network is back (`held`: the
 * device locked in place, offline; once it is sent, the device locks again as after any signing).
 */
export function KioskLocked({ outcome }: { outcome: KioskOutcome | "held" | null }) {
  const { t } = usePatientI18n();
  const s = t.signing;
  const [brand, setBrand] = useState<KioskBrand | null>(null);
  useEffect(() => {
    forgetStoredSignings();
    // A key kept for a link whose signing went online: nothing to send with it any more.
    void forgetIdleKeys().catch(() => {});
    setBrand(kioskBrand());
  }, []);
  const held = useHeldAtDesk(outcome === "held" ? () => lockKiosk("signed") : undefined);
  const thanks =
    outcome === "signed"
      ? s.kioskSignedBody
      : outcome === "declined"
        ? s.kioskDeclinedBody
        : outcome === "timeout"
          ? s.kioskTimeoutBody
          : null;
  return (
    <PatientShell branding={brand?.branding ?? null} organizationName={brand?.organizationName ?? null}>
      <StatusCard
        state="kiosk_locked"
        tone="neutral"
        icon={<LockIcon />}
        title={s.kioskLockedTitle}
        body={
          <>
            {thanks ? <p>{thanks}</p> : null}
            <p>{s.kioskLockedBody}</p>
            <HeldAtDeskNote state={held} />
          </>
        }
        action={
          // A full page load: the console starts from its login with nothing of the patient in memory.
          <a className={styles.staffLink} href="/login">
            {s.kioskStaffSignIn}
          </a>
        }
      />
    </PatientShell>
  );
}

/** What became of a signature the last patient made offline: waiting, being sent, sent, deleted. */
function HeldAtDeskNote({ state }: { state: HeldAtDesk }) {
  const { t } = usePatientI18n();
  const s = t.signing;
  const texts: Record<HeldAtDesk, string | null> = {
    none: null,
    waiting: s.kioskHeldWaiting,
    sending: s.kioskHeldSending,
    sent: s.kioskHeldSent,
    deleted: s.kioskHeldDeleted,
  };
  const text = texts[state];
  return (
    <p role="status" className={styles.heldNote} data-held={state}>
      {text}
    </p>
  );
}
