import { RETENTION_DEFAULTS } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { invalidRetentionKinds, retentionFormFrom, retentionPayload } from "./retention-form";

describe("the retention form", () => {
  it("shows the defaults as rules and saves them back unchanged", () => {
    const form = retentionFormFrom(RETENTION_DEFAULTS);
    expect(form.drafts).toEqual({ mode: "days", amount: "30" });
    expect(form.submissions).toEqual({ mode: "keep", amount: "" });
    expect(invalidRetentionKinds(form)).toEqual([]);
    expect(retentionPayload(form)).toEqual(RETENTION_DEFAULTS);
  });

  it("refuses amounts the API would refuse, and ignores the amount of a kept kind", () => {
    const form = retentionFormFrom(RETENTION_DEFAULTS);
    form.drafts = { mode: "days", amount: "0" };
    form.outbox = { mode: "years", amount: "101" };
    form.sessions = { mode: "days", amount: "1.5" };
    form.submissions = { mode: "keep", amount: "abc" };
    form.signatureRequests = { mode: "years", amount: " 10 " };
    expect(invalidRetentionKinds(form)).toEqual(["drafts", "outbox", "sessions"]);
    expect(retentionPayload(form).signatureRequests).toEqual({ amount: 10, unit: "years" });
    expect(retentionPayload(form).submissions).toBeNull();
  });
});
