"use client";

import type { SigningState } from "@clinsign/contracts";
import { Button } from "@clinsign/ui";
import type { ReactNode } from "react";
import type { PatientDictionary } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { CheckIcon, ClockIcon, CrossIcon, LinkIcon, LockIcon, PauseIcon } from "../patient/icons";
import { StatusCard, type StatusTone } from "../patient/StatusCard";

/** Screens that end the flow (or cannot start it), each with a plain explanation. */
export type EndState =
  | Exclude<SigningState, "ready" | "waiting" | "signed">
  | "session_ended"
  | "session_ended_ticket"
  | "already_signed"
  | "sealing_elsewhere"
  | "copy_expired";

function describe(
  state: EndState,
  t: PatientDictionary,
): { title: string; body: string; tone: StatusTone; icon: ReactNode } {
  const s = t.signing;
  switch (state) {
    case "expired":
      return { title: s.expiredTitle, body: s.expiredBody, tone: "warning", icon: <ClockIcon /> };
    case "declined":
      return { title: s.declinedTitle, body: s.declinedBody, tone: "neutral", icon: <CrossIcon /> };
    case "sealing":
    case "sealing_elsewhere":
      return { title: s.sealingElsewhereTitle, body: s.sealingElsewhereBody, tone: "success", icon: <CheckIcon /> };
    case "completed":
    case "already_signed":
      return { title: s.alreadySignedTitle, body: s.alreadySignedBody, tone: "success", icon: <CheckIcon /> };
    case "copy_expired":
      return { title: s.copyExpiredTitle, body: s.copyExpiredBody, tone: "success", icon: <CheckIcon /> };
    case "unavailable":
      return { title: s.unavailableTitle, body: s.unavailableBody, tone: "neutral", icon: <PauseIcon /> };
    case "verification_required":
      return { title: s.verificationTitle, body: s.verificationBody, tone: "neutral", icon: <LockIcon /> };
    case "session_ended":
      return { title: s.sessionEnded, body: s.sessionEndedBody, tone: "warning", icon: <ClockIcon /> };
    case "session_ended_ticket":
      return { title: s.sessionEnded, body: s.sessionEndedTicketBody, tone: "warning", icon: <ClockIcon /> };
    case "unknown":
    default:
      return { title: s.unknownTitle, body: s.unknownBody, tone: "danger", icon: <LinkIcon /> };
  }
}

/** `note`: a further sentence (e.g. that a signature held on this device was deleted unsent). */
export function StateScreen({
  state,
  action,
  focus,
  note,
}: {
  state: EndState;
  action?: ReactNode;
  focus?: boolean;
  note?: string;
}) {
  const { t } = usePatientI18n();
  const described = describe(state, t);
  const body = note ? (
    <>
      <p>{described.body}</p>
      <p>{note}</p>
    </>
  ) : (
    described.body
  );
  return <StatusCard {...described} body={body} state={state} action={action} focus={focus} />;
}

/** "Open again": a fresh page load (a signing link opens a new session; a ticket cannot). */
export function ReloadButton() {
  const { t } = usePatientI18n();
  return (
    <Button variant="primary" onClick={() => window.location.reload()}>
      {t.signing.reload}
    </Button>
  );
}
