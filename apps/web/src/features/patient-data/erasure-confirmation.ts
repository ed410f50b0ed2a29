import {
  confirmationFieldOf,
  erasureReason,
  erasureRecordKinds,
  type ErasureRecordKind,
  type PatientErasureReceipt,
  type PatientSelector,
} from "@clinsign/contracts";

/** Characters people put between a phone number's digits. */
const PHONE_SPACING = /[\s()./-]/g;

/** The identifier the erase confirmation asks for (the patient ID, else the case number, else the phone), as entered. */
export function confirmationTarget(selector: PatientSelector): { field: keyof PatientSelector; value: string } {
  const field = confirmationFieldOf(selector);
  return { field, value: selector[field]?.trim() ?? "" };
}

/**
 * Whether `typed` repeats the target: exact after trimming; a phone also without the spaces,
 * dashes and brackets between its digits. The server compares after its own normalisation (a phone
 * in E.164), so what passes here passes there.
 */
export function confirmsTarget(selector: PatientSelector, typed: string): boolean {
  const { field, value } = confirmationTarget(selector);
  if (value === "") return false;
  if (field !== "phone") return typed.trim() === value;
  return typed.replace(PHONE_SPACING, "") === value.replace(PHONE_SPACING, "");
}

/** A reason the server takes as to its length (3–500 characters, trimmed). */
export const reasonFits = (reason: string) => erasureReason.safeParse(reason).success;

/** The kinds the erase summary names one by one; the rest are counted together. */
const summaryKinds = ["signatureRequests", "submissions", "drafts", "uploads", "formRequests", "messages"] as const;
const otherKinds = erasureRecordKinds.filter(
  (kind) => !(summaryKinds as readonly string[]).includes(kind) && kind !== "auditEntries",
);

export interface SummaryRow {
  key: ErasureRecordKind | "objects" | "other";
  count: number;
  /** Of them signed (signature requests, submissions): what may fall under a retention duty. */
  signed: number;
}

/** How many records of a kind are signed (signature requests, submissions; none of the others). */
export function signedOf(report: PatientErasureReceipt, kind: ErasureRecordKind): number {
  if (kind === "signatureRequests") return report.retention.signedDocuments;
  if (kind === "submissions") return report.retention.signedSubmissions;
  return 0;
}

/** What an erasure removes, grouped for a person: the main kinds, stored files, the rest, audit entries. */
export function erasureSummary(report: PatientErasureReceipt): SummaryRow[] {
  const rows: SummaryRow[] = [
    ...summaryKinds.map((kind) => ({ key: kind, count: report.counts[kind], signed: signedOf(report, kind) })),
    { key: "objects", count: report.objects.found, signed: 0 },
    { key: "other", count: otherKinds.reduce((sum, kind) => sum + report.counts[kind], 0), signed: 0 },
    { key: "auditEntries", count: report.counts.auditEntries, signed: 0 },
  ];
  return rows.filter((row) => row.count > 0);
}
