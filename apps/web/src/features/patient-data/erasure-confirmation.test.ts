import { describe, expect, it } from "vitest";
import type { PatientErasureReceipt } from "@clinsign/contracts";
import { confirmationTarget, confirmsTarget, erasureSummary, reasonFits } from "./erasure-confirmation";

describe("erase confirmation", () => {
  it("asks for the patient ID, else the case number, else the phone, as entered", () => {
    expect(confirmationTarget({ patientId: "P-1", rnummer: "R-1" })).toEqual({ field: "patientId", value: "P-1" });
    expect(confirmationTarget({ rnummer: "R-1", phone: "0170 1234567" })).toEqual({ field: "rnummer", value: "R-1" });
    expect(confirmationTarget({ phone: "0170 1234567" })).toEqual({ field: "phone", value: "0170 1234567" });
  });

  it("takes the identifier exactly (trimmed); a phone also without spacing", () => {
    expect(confirmsTarget({ patientId: "P-1", rnummer: "R-1" }, " P-1 ")).toBe(true);
    expect(confirmsTarget({ patientId: "P-1", rnummer: "R-1" }, "p-1")).toBe(false);
    expect(confirmsTarget({ patientId: "P-1", rnummer: "R-1" }, "R-1")).toBe(false);
    expect(confirmsTarget({ patientId: "P-1" }, "")).toBe(false);
    expect(confirmsTarget({ phone: "0170 1234567" }, "0170-123 45 67")).toBe(true);
    expect(confirmsTarget({ phone: "0170 1234567" }, "0170 1234568")).toBe(false);
  });

  it("a reason has 3 to 500 characters after trimming", () => {
    expect(reasonFits("  ab ")).toBe(false);
    expect(reasonFits("abc")).toBe(true);
    expect(reasonFits("x".repeat(501))).toBe(false);
  });

  it("sums up what goes: main kinds with their signed ones, files, the rest, audit entries", () => {
    const counts = {
      embedSessions: 1,
      drafts: 0,
      submissions: 3,
      uploads: 0,
      formRequests: 0,
      otpChallenges: 2,
      signatureRequests: 1,
      signingCredentials: 1,
      signatureNotices: 0,
      messages: 0,
      webhookDeliveries: 4,
      webhookAttempts: 0,
      fhirDeliveries: 1,
      jobs: 0,
      auditEntries: 9,
    };
    const report = {
      counts,
      objects: { found: 5, deleted: 0, pending: 0 },
      retention: { signedDocuments: 1, signedSubmissions: 2, periods: { signatureRequests: null, submissions: null } },
    } as unknown as PatientErasureReceipt;
    expect(erasureSummary(report)).toEqual([
      { key: "signatureRequests", count: 1, signed: 1 },
      { key: "submissions", count: 3, signed: 2 },
      { key: "objects", count: 5, signed: 0 },
      { key: "other", count: 9, signed: 0 },
      { key: "auditEntries", count: 9, signed: 0 },
    ]);
  });
});
