"use client";

import type { ReactNode } from "react";
import { format, type PatientDictionary } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { CheckIcon, ClockIcon, LinkIcon, LockIcon, PauseIcon } from "../patient/icons";
import { HeldScreen } from "../patient/HeldScreen";
import { useOnline } from "../patient/offline/service-worker";
import { LoadFailedScreen, OpeningScreen } from "../patient/PatientScreens";
import { StatusCard, type StatusTone } from "../patient/StatusCard";

/**
 * Where a patient form page ends instead of showing the form: `done` just after the patient
 * submitted; the others when the link or session cannot (or can no longer) be used.
 * `session_ended` is the embedded form's, `unknown`, `expired`, `locked` and `submitted` the SMS
 * link's; `unavailable` both.
 */
export type FormEnd = "done" | "session_ended" | "unavailable" | "unknown" | "expired" | "locked" | "submitted";

/**
 * Every screen of a patient form page but the form itself. `held`: submitted offline, the form
 * waits on this device for the network. An end's `discarded`: what this device held for the form
 * was not sent (the link closed meanwhile) and is deleted.
 */
export type FormStatus =
  | { kind: "opening" }
  | { kind: "failed"; error: unknown }
  | { kind: "held" }
  | { kind: "end"; end: FormEnd; discarded?: boolean };

type EndCard = { title: string; body: string; tone: StatusTone; icon: ReactNode };

function endCard(t: PatientDictionary, end: FormEnd, organizationName: string | null): EndCard {
  const s = t.forms.sms;
  switch (end) {
    case "done":
      return { title: t.forms.doneTitle, body: t.forms.doneBody, tone: "success", icon: <CheckIcon /> };
    case "session_ended":
      return {
        title: t.forms.states.sessionEndedTitle,
        body: t.forms.states.sessionEndedBody,
        tone: "warning",
        icon: <ClockIcon />,
      };
    case "unavailable":
      return {
        title: t.forms.states.unavailableTitle,
        body: t.forms.states.unavailableBody,
        tone: "neutral",
        icon: <PauseIcon />,
      };
    case "unknown":
      return { title: s.unknownTitle, body: s.unknownBody, tone: "danger", icon: <LinkIcon /> };
    case "expired":
      return { title: s.expiredTitle, body: s.expiredBody, tone: "warning", icon: <ClockIcon /> };
    case "locked":
      return {
        title: s.lockedTitle,
        body: organizationName ? format(s.lockedBody, { organization: organizationName }) : s.lockedBodyGeneric,
        tone: "danger",
        icon: <LockIcon />,
      };
    case "submitted":
      return { title: s.submittedTitle, body: s.submittedBody, tone: "success", icon: <CheckIcon /> };
  }
}

/**
 * The opening spinner, the load failure with "Try again", or the card of an end, for both patient
 * form pages (the embedded form and the SMS link). `focus` moves focus to the heading of an end
 * reached after the patient acted; `action` is the card's button or link (the embed's "Continue").
 */
export function FormStatusScreen({
  status,
  onRetry,
  organizationName = null,
  focus,
  action,
}: {
  status: FormStatus;
  onRetry(): void;
  organizationName?: string | null;
  focus?: boolean;
  action?: ReactNode;
}) {
  const { t } = usePatientI18n();
  const online = useOnline();
  switch (status.kind) {
    case "opening":
      return <OpeningScreen text={t.forms.opening} />;
    case "held":
      return (
        <HeldScreen
          texts={{
            title: t.forms.heldTitle,
            body: t.forms.heldBody,
            waiting: t.forms.heldWaiting,
            sending: t.forms.heldSending,
          }}
          online={online}
          focus
        />
      );
    case "failed":
      return <LoadFailedScreen title={t.forms.openFailed} error={status.error} onRetry={onRetry} />;
    case "end": {
      const card = endCard(t, status.end, organizationName);
      return (
        <StatusCard
          // A submission just made and one found on opening the link are the same state.
          state={status.end === "done" ? "submitted" : status.end}
          // Just after submitting, focus always moves to what happened.
          focus={status.end === "done" || focus}
          action={action}
          {...card}
          body={
            status.discarded ? (
              <>
                <p>{card.body}</p>
                <p>{t.forms.heldDiscarded}</p>
              </>
            ) : (
              card.body
            )
          }
        />
      );
    }
  }
}
