"use client";

import type { SigningState } from "@clinsign/contracts";
import { Button } from "@clinsign/ui";
import type { ReactNode } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { ScreenHeading } from "./ScreenHeading";
import styles from "./signing.module.css";

/** Screens that end the flow (or cannot start it), each with a plain explanation. */
export type EndState = Exclude<SigningState, "ready"> | "session_ended" | "session_ended_ticket" | "already_signed" | "sealing_elsewhere";

type Tone = "neutral" | "success" | "warning" | "danger";

function describe(state: EndState, t: Dictionary): { title: string; body: string; tone: Tone; icon: ReactNode } {
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

export function StateScreen({ state, action, focus }: { state: EndState; action?: ReactNode; focus?: boolean }) {
  const { t } = useI18n();
  const { title, body, tone, icon } = describe(state, t);
  return (
    <section className={styles.stateCard} data-tone={tone} data-state={state} aria-labelledby="portal-heading">
      <span className={styles.stateIcon} aria-hidden="true">
        {icon}
      </span>
      <ScreenHeading focus={focus}>{title}</ScreenHeading>
      <p className={styles.stateBody}>{body}</p>
      {action ? <div className={styles.stateAction}>{action}</div> : null}
    </section>
  );
}

/** "Open again": a fresh page load (a signing link opens a new session; a ticket cannot). */
export function ReloadButton() {
  const { t } = useI18n();
  return (
    <Button variant="primary" onClick={() => window.location.reload()}>
      {t.signing.reload}
    </Button>
  );
}

function Svg({ children }: { children: ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" focusable="false">
      {children}
    </svg>
  );
}

export function CheckIcon() {
  return (
    <Svg>
      <path d="M20 6L9 17l-5-5" />
    </Svg>
  );
}
function CrossIcon() {
  return (
    <Svg>
      <path d="M18 6L6 18M6 6l12 12" />
    </Svg>
  );
}
function ClockIcon() {
  return (
    <Svg>
      <circle cx="12" cy="12" r="10" />
      <path d="M12 6v6l4 2" />
    </Svg>
  );
}
function PauseIcon() {
  return (
    <Svg>
      <circle cx="12" cy="12" r="10" />
      <path d="M10 9v6M14 9v6" />
    </Svg>
  );
}
function LockIcon() {
  return (
    <Svg>
      <rect x="4" y="11" width="16" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </Svg>
  );
}
function LinkIcon() {
  return (
    <Svg>
      <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />
      <path d="M3 3l18 18" />
    </Svg>
  );
}
export function DownloadIcon() {
  return (
    <svg viewBox="0 0 24 24" className="cs-icon" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M12 3v12M7 10l5 5 5-5M5 21h14" />
    </svg>
  );
}
