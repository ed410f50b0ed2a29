import { describe, expect, it } from "vitest";
import { confirmationFieldOf, patientErasureInput, restPatientErasureInput } from "./patient-erasure";

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  (result.error?.issues ?? []).map((issue) => issue.path.join("."));

describe("patient erasure input", () => {
  it("a dry run needs neither confirmation nor reason", () => {
    expect(patientErasureInput.safeParse({ selector: { rnummer: "R-1" }, dryRun: true }).success).toBe(true);
    expect(restPatientErasureInput.safeParse({ rnummer: "R-1", dry_run: true }).success).toBe(true);
  });

  it("an erasure needs the identifier typed again and a reason of 3-500 characters, trimmed", () => {
    expect(issuesOf(patientErasureInput.safeParse({ selector: { rnummer: "R-1" } }))).toEqual([
      "confirmation",
      "reason",
    ]);
    expect(issuesOf(restPatientErasureInput.safeParse({ rnummer: "R-1", reason: "Art. 17" }))).toEqual([
      "confirmation",
    ]);
    expect(
      issuesOf(patientErasureInput.safeParse({ selector: { rnummer: "R-1" }, confirmation: "R-1", reason: "  ab  " })),
    ).toEqual(["reason"]);
    expect(
      issuesOf(
        patientErasureInput.safeParse({ selector: { rnummer: "R-1" }, confirmation: "R-1", reason: "x".repeat(501) }),
      ),
    ).toEqual(["reason"]);
    const ok = patientErasureInput.parse({ selector: { rnummer: "R-1" }, confirmation: " R-1 ", reason: "  why  " });
    expect(ok).toMatchObject({ dryRun: false, confirmation: "R-1", reason: "why" });
  });

  it("the phone is taken as staff type it (the service reads it in E.164)", () => {
    for (const phone of ["+491701234567", "0170 1234567", "0049 170 1234567"])
      expect(patientErasureInput.safeParse({ selector: { phone }, dryRun: true }).success, phone).toBe(true);
    expect(issuesOf(patientErasureInput.safeParse({ selector: { phone: "   " }, dryRun: true }))).toEqual([
      "selector.phone",
    ]);
  });

  it("the confirmation repeats the patient ID, else the case number, else the phone", () => {
    expect(confirmationFieldOf({ patientId: "P-1", rnummer: "R-1", phone: "+491701234567" })).toBe("patientId");
    expect(confirmationFieldOf({ rnummer: "R-1", phone: "+491701234567" })).toBe("rnummer");
    expect(confirmationFieldOf({ patientId: " ", phone: "+491701234567" })).toBe("phone");
  });
});
