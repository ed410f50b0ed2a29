import type { SignatureRequestState } from "@clinsign/contracts";
import type { BadgeTone } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";

type Texts = Dictionary["signatureRequestsPage"];

/** A request's status as staff read it, and the badge tone that says whether it needs them. */
export function statusLabel(status: SignatureRequestState, s: Texts): string {
  const labels: Record<SignatureRequestState, string> = {
    pending: s.statusPending,
    opened: s.statusOpened,
    sealing: s.statusSealing,
    completed: s.statusCompleted,
    declined: s.statusDeclined,
    expired: s.statusExpired,
    failed: s.statusFailed,
  };
  return labels[status];
}

export function statusTone(status: SignatureRequestState): BadgeTone {
  switch (status) {
    case "completed":
      return "success";
    case "failed":
      return "danger";
    case "declined":
    case "sealing":
      return "warning";
    case "opened":
      return "accent";
    default:
      return "neutral";
  }
}

/** Requests the patient can still sign: their expiry can still move. */
export const isOpen = (status: SignatureRequestState) => status === "pending" || status === "opened";

/** A date input's value (YYYY-MM-DD) for an ISO instant, in the reader's time zone. */
export function dayOf(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * An expiry chosen as a day: the end of that day in the reader's time zone (23:59:59), so
 * "expires on the 31st" keeps the link open through the 31st. Undefined for anything that is not
 * a YYYY-MM-DD day.
 */
export function endOfDayInstant(day: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T23:59:59`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Today plus `days`, as a date input's value. */
export function dayFromNow(days: number, now = new Date()): string {
  const date = new Date(now);
  date.setDate(date.getDate() + days);
  return dayOf(date.toISOString());
}
