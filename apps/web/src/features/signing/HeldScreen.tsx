"use client";

import { usePatientI18n } from "../../i18n/I18nProvider";
import { DeviceIcon } from "../patient/icons";
import { StatusCard } from "../patient/StatusCard";
import styles from "./signing.module.css";

/**
 * Signed offline: the signature waits on this device, encrypted, and is sent by itself once the
 * network returns (online, it is being sent right now). Nothing for the patient to do but wait,
 * or come back through the same link.
 */
export function HeldScreen({ online, focus }: { online: boolean; focus?: boolean }) {
  const { t } = usePatientI18n();
  return (
    <StatusCard
      title={t.signing.heldTitle}
      tone="warning"
      icon={<DeviceIcon />}
      state="held"
      focus={focus}
      body={
        <>
          <p>{t.signing.heldBody}</p>
          <p role="status" className={styles.heldStatus} data-online={online || undefined}>
            {online ? (
              <>
                <span className="cs-spinner" aria-hidden="true" /> {t.signing.heldSending}
              </>
            ) : (
              t.signing.heldWaiting
            )}
          </p>
        </>
      }
    />
  );
}
