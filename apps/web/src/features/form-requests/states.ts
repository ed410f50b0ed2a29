import type { FormRequestState } from "@clinsign/contracts";
import type { BadgeTone } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";

type Texts = Dictionary["formRequestsPage"];

/** A request's state as staff read it, and the badge tone that says whether it needs them. */
export function stateLabel(state: FormRequestState, f: Texts): string {
  const labels: Record<FormRequestState, string> = {
    sending: f.stateSending,
    sent: f.stateSent,
    in_outbox: f.stateInOutbox,
    sms_retrying: f.stateSmsRetrying,
    sms_failed: f.stateSmsFailed,
    opened: f.stateOpened,
    verified: f.stateVerified,
    locked: f.stateLocked,
    submitted: f.stateSubmitted,
    expired: f.stateExpired,
    cancelled: f.stateCancelled,
  };
  return labels[state];
}

export function stateTone(state: FormRequestState): BadgeTone {
  switch (state) {
    case "submitted":
      return "success";
    case "sms_failed":
    case "locked":
      return "danger";
    case "sms_retrying":
    case "in_outbox":
      return "warning";
    case "opened":
    case "verified":
      return "accent";
    default:
      return "neutral";
  }
}

/** Requests whose link can still be sent again or cancelled. */
export const isOpen = (state: FormRequestState) => state !== "submitted" && state !== "cancelled";
