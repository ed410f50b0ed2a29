import {
  auditActions,
  auditLabelKeys,
  retentionKinds,
  saveSsoSettingsInput,
  updateOrganizationInput,
  updateTemplateInput,
  type AuditListItem,
} from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { de } from "../../i18n/de";
import { en } from "../../i18n/en";
import { actionLabel, actorWords, changeWords } from "./entry-words";

const entry = (change: Partial<AuditListItem>): AuditListItem => ({
  id: "e1",
  seq: 2,
  action: "config.updated",
  templateIdentifier: null,
  actorType: "user",
  actorId: null,
  actorName: null,
  actorRole: null,
  metadata: {},
  ip: null,
  userAgent: null,
  createdAt: "2026-12-01T10:00:00.000Z",
  chained: true,
  ...change,
});

describe("every audit action has a plain label", () => {
  it("in German and English, for each action the server writes (and each kind of config.updated)", () => {
    for (const [lang, dictionary] of [
      ["en", en],
      ["de", de],
    ] as const) {
      const labels = dictionary.auditLogPage.actions as Record<string, string>;
      const missing = auditLabelKeys.filter((key) => !labels[key]?.trim());
      expect(missing, `${lang}: actions without a label`).toEqual([]);
      // No label for something the server never writes (a renamed or mistyped key).
      expect(
        Object.keys(labels).filter((key) => !(auditLabelKeys as readonly string[]).includes(key)),
        lang,
      ).toEqual([]);
    }
    // Every action the server writes reaches a label.
    for (const action of auditActions) {
      expect(actionLabel(entry({ action, metadata: {} }), en.auditLogPage), action).not.toBeNull();
    }
  });

  it("labels each distinct action differently (no two share the words of one)", () => {
    for (const dictionary of [en, de]) {
      const texts = Object.values(dictionary.auditLogPage.actions);
      expect(new Set(texts).size).toBe(texts.length);
    }
  });

  it("tells the kinds of config.updated apart: a settings change is not an embed session", () => {
    const a = en.auditLogPage;
    // An organization settings change before issue 31 carried only the names it changed.
    expect(actionLabel(entry({ metadata: { changed: ["name"] } }), a)).toBe("Organization settings changed");
    expect(actionLabel(entry({ metadata: { kind: "settings", changes: {} } }), a)).toBe(
      "Organization settings changed",
    );
    expect(actionLabel(entry({ metadata: { kind: "session", configKeys: ["rnummer"] } }), a)).toBe(
      "Personal form link created (embed session)",
    );
    expect(actionLabel(entry({ metadata: { kind: "session", revoked: true } }), a)).toBe("Personal form link ended");
    expect(actionLabel(entry({ metadata: { kind: "public_embed", enabled: true } }), a)).toBe(
      "Website form settings changed",
    );
  });
});

describe("what a settings change changed, in words", () => {
  it("says field: before → after, secrets only as changed", () => {
    const lines = changeWords(
      entry({
        metadata: {
          kind: "settings",
          changed: ["otpEnabled", "signatureReminderDays", "webhookSecret", "webhookUrls"],
          changes: {
            otpEnabled: { from: false, to: true },
            signatureReminderDays: { from: 3, to: 5 },
            webhookSecret: { secret: true },
            webhookUrls: { from: [], to: ["https://his.example.org/hooks", "https://b.example"] },
          },
        },
      }),
      en.auditLogPage,
    );
    expect(lines).toEqual([
      "Require a one-time code (SMS form): off → on",
      "Remind unsigned requests after (days): 3 → 5",
      "Webhook signing secret: changed (not shown)",
      "Webhook URLs: none → https://his.example.org/hooks, https://b.example",
    ]);
    expect(
      changeWords(entry({ metadata: { changes: { otpEnabled: { from: false, to: true } } } }), de.auditLogPage),
    ).toEqual(["Einmalcode verlangen (SMS-Formular): aus → an"]);
  });

  it("reads retention periods, and an older entry that named its fields only", () => {
    const retention = entry({
      action: "retention.policy_updated",
      metadata: { changes: { drafts: { from: { amount: 30, unit: "days" }, to: null } } },
    });
    expect(changeWords(retention, en.auditLogPage)).toEqual(["Unsent drafts: 30 days → kept for good"]);
    expect(changeWords(entry({ metadata: { changed: ["name", "webhookUrls"] } }), en.auditLogPage)).toEqual([
      "Changed: Organization name, Webhook URLs",
    ]);
    expect(changeWords(entry({ metadata: { kind: "settings", changed: [], changes: {} } }), en.auditLogPage)).toEqual([
      "Nothing changed",
    ]);
    expect(changeWords(entry({ action: "form.submitted", metadata: { rnummer: "R-1" } }), en.auditLogPage)).toEqual([]);
  });

  it("has words for every setting a change can record", () => {
    const fields = [
      ...Object.keys(updateOrganizationInput.shape),
      ...Object.keys(saveSsoSettingsInput.shape).filter((f) => f !== "stepUp"),
      ...retentionKinds,
      ...["logoUrl", "primaryColor", "accentColor", "font"],
      ...["enabled", "allowedOrigins", "visitorMode", "idleMinutes"],
      // template.updated names what it changed (no values: a form's questions are long).
      ...Object.keys(updateTemplateInput.shape).filter((f) => f !== "identifier"),
    ];
    for (const dictionary of [en, de]) {
      const words = dictionary.auditLogPage.fields as Record<string, string>;
      expect(fields.filter((f) => !words[f])).toEqual([]);
    }
  });
});

describe("who acted", () => {
  it("names a signer by role and name, not always as the patient", () => {
    const a = en.auditLogPage;
    const roles = en.signing.signerRoles;
    expect(
      actorWords(entry({ actorType: "signer", actorRole: "physician", actorName: "Dr. Weber" }), a, roles),
    ).toEqual({ kind: "Physician (signing link)", name: "Dr. Weber" });
    expect(actorWords(entry({ actorType: "signer", actorRole: "patient" }), a, roles)).toEqual({
      kind: "Patient (signing link)",
      name: null,
    });
    // A clinic's own role name stays as the clinic wrote it.
    expect(actorWords(entry({ actorType: "signer", actorRole: "Aufklärende Ärztin" }), a, roles).kind).toBe(
      "Aufklärende Ärztin (signing link)",
    );
    expect(
      actorWords(entry({ actorType: "signer", actorRole: "physician" }), de.auditLogPage, de.signing.signerRoles).kind,
    ).toBe("Ärztin/Arzt (Signaturlink)");
    expect(actorWords(entry({ actorType: "user", actorName: "Demo Admin" }), a, roles)).toEqual({
      kind: "Staff member",
      name: "Demo Admin",
    });
  });
});
