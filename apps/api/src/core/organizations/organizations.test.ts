import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, organizations } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";

let api: TestApi;
let org: TestOrg;
let admin: ReturnType<TestApi["trpc"]>;
beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg();
  admin = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
});
afterAll(() => api?.close());

describe("organization settings", () => {
  it("saves settings and keeps secrets encrypted and write-only", async () => {
    const updated = await admin.organization.update.mutate({
      name: "Klinikum Ost",
      webhookUrls: ["https://his.example.org/hooks"],
      otpEnabled: true,
      sessionMethod: "hs256",
      sessionJwtSecret: "a-very-long-shared-secret-123",
    });
    expect(updated).toMatchObject({
      name: "Klinikum Ost",
      webhookUrls: ["https://his.example.org/hooks"],
      otpEnabled: true,
      sessionMethod: "hs256",
      hasSessionJwtSecret: true,
    });
    expect(JSON.stringify(updated)).not.toContain("a-very-long-shared-secret-123");
    const [row] = await api.services.db.select().from(organizations).where(eq(organizations.id, org.orgId));
    expect(row!.sessionJwtSecretEnc).not.toContain("a-very-long-shared-secret-123");
    expect(api.services.secrets.open(row!.sessionJwtSecretEnc!)).toBe("a-very-long-shared-secret-123");
  });

  it("saves the A4 audience, issuer and required jti, and clears them with null", async () => {
    const saved = await admin.organization.update.mutate({
      sessionAudience: " clinsign ",
      sessionIssuer: "https://portal.example",
      sessionRequireJti: true,
    });
    expect(saved).toMatchObject({
      sessionAudience: "clinsign",
      sessionIssuer: "https://portal.example",
      sessionRequireJti: true,
    });
    expect(await admin.organization.settings.query()).toMatchObject({
      sessionAudience: "clinsign",
      sessionIssuer: "https://portal.example",
      sessionRequireJti: true,
    });
    const cleared = await admin.organization.update.mutate({
      sessionAudience: null,
      sessionIssuer: null,
      sessionRequireJti: false,
    });
    expect(cleared).toMatchObject({ sessionAudience: null, sessionIssuer: null, sessionRequireJti: false });
    await expect(admin.organization.update.mutate({ sessionAudience: "  " })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });

  it("keeps the clinic's language, time zone, phone country and signed-copy period, German by default", async () => {
    const fresh = await api.createOrg();
    const other = api.trpc({ cookie: await logInCookie(api, fresh.ownerEmail, fresh.ownerPassword) });
    expect(await other.organization.settings.query()).toMatchObject({
      locale: "de",
      timeZone: "Europe/Berlin",
      phoneCountry: "DE",
      signedCopyDays: 30,
    });
    const saved = await other.organization.update.mutate({
      locale: "en",
      timeZone: "Europe/Vienna",
      phoneCountry: "at",
      signedCopyDays: 90,
    });
    expect(saved).toMatchObject({ locale: "en", timeZone: "Europe/Vienna", phoneCountry: "AT", signedCopyDays: 90 });
    await expect(other.organization.update.mutate({ timeZone: "Mars/Olympus" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(other.organization.update.mutate({ phoneCountry: "DEU" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });

  it("rotates the webhook signing secret and shows the new one once", async () => {
    const { secret } = await admin.organization.rotateWebhookSecret.mutate();
    expect(secret).toMatch(/^whsec_/);
    const settings = await admin.organization.settings.query();
    expect(settings.hasWebhookSecret).toBe(true);
    expect(JSON.stringify(settings)).not.toContain(secret);
    const { secret: next } = await admin.organization.rotateWebhookSecret.mutate();
    expect(next).not.toBe(secret);
  });

  it("refuses a verification method without its secret or URL, and bad URLs", async () => {
    const fresh = await api.createOrg();
    const other = api.trpc({ cookie: await logInCookie(api, fresh.ownerEmail, fresh.ownerPassword) });
    await expect(other.organization.update.mutate({ sessionMethod: "jwks" })).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "sessionJwksUrl" } },
    });
    await expect(other.organization.update.mutate({ requireSessionVerification: true })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(other.organization.update.mutate({ webhookUrls: ["javascript:alert(1)"] })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });
});

describe("the audit entry of a settings change (issue 31)", () => {
  it("records only what changed, before and after; secrets as changed, never their value", async () => {
    const fresh = await api.createOrg("Klinik West");
    const client = api.trpc({ cookie: await logInCookie(api, fresh.ownerEmail, fresh.ownerPassword) });
    const settings = await client.organization.settings.query();
    // The settings form sends every field; two of them changed, and a webhook secret is set.
    await client.organization.update.mutate({
      name: settings.name,
      webhookUrls: ["https://his.example.org/hooks"],
      otpEnabled: settings.otpEnabled,
      locale: settings.locale,
      timeZone: settings.timeZone,
      signatureReminderDays: settings.signatureReminderDays === 3 ? 4 : 3,
      sessionAudience: settings.sessionAudience,
      webhookSecret: "whsec_first-secret-value-123",
    });
    const lastEntry = async () => (await client.audit.entries.query({ action: "config.updated", limit: 1 })).items[0]!;
    const entry = await lastEntry();
    expect(entry.metadata).toEqual({
      kind: "settings",
      changed: ["signatureReminderDays", "webhookSecret", "webhookUrls"],
      changes: {
        signatureReminderDays: {
          from: settings.signatureReminderDays,
          to: settings.signatureReminderDays === 3 ? 4 : 3,
        },
        webhookSecret: { secret: true },
        webhookUrls: { from: [], to: ["https://his.example.org/hooks"] },
      },
    });
    expect(JSON.stringify(entry)).not.toContain("first-secret-value");

    // The same secret again, and a URL cleared: the secret did not change.
    await client.organization.update.mutate({
      webhookSecret: "whsec_first-secret-value-123",
      sessionJwksUrl: "https://idp.example.org/jwks",
    });
    expect((await lastEntry()).metadata).toEqual({
      kind: "settings",
      changed: ["sessionJwksUrl"],
      changes: { sessionJwksUrl: { from: null, to: "https://idp.example.org/jwks" } },
    });
    await client.organization.update.mutate({ sessionJwksUrl: null });
    expect((await lastEntry()).metadata.changes).toEqual({
      sessionJwksUrl: { from: "https://idp.example.org/jwks", to: null },
    });

    // A rotation is a change of the secret, with no value either.
    const { secret } = await client.organization.rotateWebhookSecret.mutate();
    const rotated = await lastEntry();
    expect(rotated.metadata).toEqual({
      kind: "settings",
      changed: ["webhookSecret"],
      changes: { webhookSecret: { secret: true } },
    });
    expect(JSON.stringify(rotated)).not.toContain(secret);
  });
});
