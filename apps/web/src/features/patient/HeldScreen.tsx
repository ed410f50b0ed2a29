"use client";

import { DeviceIcon } from "./icons";
import { StatusCard } from "./StatusCard";
import styles from "./patient.module.css";

/** What the held screen says: the signing page's words for a signature, the form pages' for a form. */
export interface HeldTexts {
  title: string;
  body: string;
  /** Offline: it waits. */
  waiting: string;
  /** Online: it is being sent now. */
  sending: string;
}

/**
 * Made offline: what the patient did waits on this device, encrypted, and is sent by itself once
 * the network returns (online, it is being sent right now). Nothing for the patient to do but
 * wait, or come back through the same link.
 */
export function HeldScreen({ texts, online, focus }: { texts: HeldTexts; online: boolean; focus?: boolean }) {
  return (
    <StatusCard
      title={texts.title}
      tone="warning"
      icon={<DeviceIcon />}
      state="held"
      focus={focus}
      body={
        <>
          <p>{texts.body}</p>
          <p role="status" className={styles.heldStatus} data-online={online || undefined}>
            {online ? (
              <>
                <span className="cs-spinner" aria-hidden="true" /> {texts.sending}
              </>
            ) : (
              texts.waiting
            )}
          </p>
        </>
      }
    />
  );
}
