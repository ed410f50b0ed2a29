import { describe, expect, it } from "vitest";
import { settingChanges } from "./changes";

describe("settingChanges", () => {
  it("records only the settings given whose value differs, each before and after", () => {
    const before = { name: "Klinik", otpEnabled: false, webhookUrls: ["https://a.example"], locale: "de" };
    const after = { name: "Klinik", otpEnabled: true, webhookUrls: ["https://b.example"], locale: undefined };
    expect(settingChanges(before, after)).toEqual({
      changed: ["otpEnabled", "webhookUrls"],
      changes: {
        otpEnabled: { from: false, to: true },
        webhookUrls: { from: ["https://a.example"], to: ["https://b.example"] },
      },
    });
  });

  it("compares objects by content, whatever the key order; null and a missing value are the same", () => {
    const before = { period: { amount: 3, unit: "years" }, audience: null };
    expect(settingChanges(before, { period: { unit: "years", amount: 3 }, audience: null })).toEqual({
      changed: [],
      changes: {},
    });
    expect(settingChanges({}, { audience: "clinsign" }).changes).toEqual({ audience: { from: null, to: "clinsign" } });
  });

  it("names a secret as changed without a value, and leaves out one that did not change", () => {
    const diff = settingChanges({ webhookSecret: "old" }, { webhookSecret: "whsec_new" }, { webhookSecret: true });
    expect(diff).toEqual({ changed: ["webhookSecret"], changes: { webhookSecret: { secret: true } } });
    expect(JSON.stringify(diff)).not.toContain("whsec_new");
    expect(JSON.stringify(diff)).not.toContain("old");
    expect(settingChanges({}, { webhookSecret: "same" }, { webhookSecret: false })).toEqual({
      changed: [],
      changes: {},
    });
  });
});
