import type { SignatureRequestListItem, SignatureRequestState } from "@clinsign/contracts";
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

/**
 * The list's badge: a request with several signers that someone has signed and others still have
 * to is "Partly signed", not "Opened" (issue 31: the list said "Opened" after the patient signed).
 */
export function listStatus(
  row: Pick<SignatureRequestListItem, "status" | "signerProgress" | "kioskStartedAt">,
  s: Texts,
): { label: string; tone: BadgeTone } {
  if (waitingForDevice(row)) return { label: s.statusWaitingForDevice, tone: "warning" };
  if (isOpen(row.status) && (row.signerProgress?.signed ?? 0) > 0)
    return { label: s.statusPartlySigned, tone: "accent" };
  return { label: statusLabel(row.status, s), tone: statusTone(row.status) };
}

/**
 * Issue 35: staff handed a device over ("Sign at this device") and the request is still open: the
 * device has not reported back, and may hold a signature made without a network.
 */
export const waitingForDevice = (row: Pick<SignatureRequestListItem, "status" | "kioskStartedAt">) =>
  isOpen(row.status) && Boolean(row.kioskStartedAt);

/** Requests whose status may still change by itself (a signer signs, sealing ends): the list keeps asking. */
export const mayChange = (status: SignatureRequestState) => isOpen(status) || status === "sealing";
