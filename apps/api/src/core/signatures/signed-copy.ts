import type { SignedCopyState } from "@clinsign/contracts";
import type { SignatureRequestRow } from "./request-read";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Until when the signer can fetch their signed copy through the signing link (or an A4 ticket):
 * the organization's `signedCopyDays` after signing. Null for a request that was not signed.
 */
export function signedCopyUntil(row: SignatureRequestRow, signedCopyDays: number): Date | null {
  if (row.status !== "sealing" && row.status !== "completed") return null;
  const signedAt = row.signedAt ?? row.completedAt ?? row.updatedAt;
  return new Date(signedAt.getTime() + signedCopyDays * DAY_MS);
}

/** `preparing` while sealing, `available` once sealed, `expired` after the period; null if unsigned. */
export function signedCopyState(
  row: SignatureRequestRow,
  until: Date | null,
  now = new Date(),
): SignedCopyState | null {
  if (!until) return null;
  if (until.getTime() <= now.getTime()) return "expired";
  return row.status === "completed" && row.signedPdfKey ? "available" : "preparing";
}

/** Both at once, as the portal's answers carry them. */
export function signedCopyOf(row: SignatureRequestRow, signedCopyDays: number) {
  const until = signedCopyUntil(row, signedCopyDays);
  return { until, state: signedCopyState(row, until) };
}
