"use client";

import type { VisitorPolicyOutput } from "@clinsign/contracts";
import { useEffect, useRef, useState } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { ClockIcon } from "../patient/icons";
import { StatusCard } from "../patient/StatusCard";

/**
 * What a public embed's visitor policy means on the page (issue 31: on a waiting-room tablet the
 * next visitor is the next patient). `resume`: an unfinished form is offered again, as the
 * visitor's choice, naming only the form and when. `shared_device`: the form empties itself after
 * `idleMinutes` without activity. `fresh`: neither (and nothing was kept in the browser).
 */

/** Whether a public embed's visitor may be offered the unfinished form this browser kept. */
export const offersResume = (visitor: VisitorPolicyOutput | undefined) => visitor?.mode === "resume";

/** "Continue where you left off?": the form's title and when it was last saved, nothing of the answers. */
export function ResumePrompt({
  formTitle,
  savedAt,
  onContinue,
  onStartOver,
}: {
  formTitle: string;
  savedAt: string;
  onContinue(): void;
  onStartOver(): void;
}) {
  const { t, locale } = usePatientI18n();
  return (
    <StatusCard
      state="resume"
      tone="neutral"
      icon={<ClockIcon />}
      title={t.forms.resumeTitle}
      body={<p>{format(t.forms.resumeBody, { form: formTitle, date: formatDateTime(savedAt, locale) })}</p>}
      focus
      action={
        <div className="cs-stack">
          <button type="button" className="cs-button cs-button--primary cs-button--block" onClick={onContinue}>
            {t.forms.resumeContinue}
          </button>
          <button type="button" className="cs-button cs-button--secondary cs-button--block" onClick={onStartOver}>
            {t.forms.startOver}
          </button>
        </div>
      }
    />
  );
}

/** Activity that keeps a shared device's form: any key, pointer or touch, and scrolling. */
const ACTIVITY_EVENTS = ["keydown", "pointerdown", "touchstart", "input", "scroll"] as const;

/**
 * Calls `onIdle` once `minutes` pass without activity on the page, while `active`. A shared
 * device empties its form this way, so the next person finds nothing of the last one's answers.
 * `cleared` says it happened (for the note above the new form) until `forget()`.
 */
export function useIdleReset(active: boolean, minutes: number, onIdle: () => unknown) {
  const [cleared, setCleared] = useState(false);
  const latest = useRef(onIdle);
  latest.current = onIdle;
  useEffect(() => {
    if (!active) return;
    const fire = () => {
      setCleared(true);
      void latest.current();
    };
    let timer = window.setTimeout(fire, minutes * 60_000);
    const restart = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(fire, minutes * 60_000);
    };
    for (const event of ACTIVITY_EVENTS) window.addEventListener(event, restart, { passive: true, capture: true });
    return () => {
      window.clearTimeout(timer);
      for (const event of ACTIVITY_EVENTS) window.removeEventListener(event, restart, { capture: true });
    };
  }, [active, minutes]);
  return { cleared, forget: () => setCleared(false) };
}

/** The shared device's note above its form: what empties it, and when. */
export function SharedDeviceNote({ minutes, cleared }: { minutes: number; cleared: boolean }) {
  const { t } = usePatientI18n();
  return (
    <p className="cs-hint" role={cleared ? "status" : undefined} data-testid="shared-device-note">
      {cleared ? format(t.forms.clearedIdle, { minutes }) : format(t.forms.sharedDeviceNote, { minutes })}
    </p>
  );
}
