import type { OrganizationSettings } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { en } from "../../i18n/en";
import {
  buildPayload,
  errorsFromFieldErrors,
  formStateFrom,
  isDirty,
  PHONE_COUNTRIES,
  TIME_ZONES,
  validate,
  withCurrent,
} from "./settings-form";

const settings: OrganizationSettings = {
  id: "3f1c8f5e-8a56-4d7e-9d8e-2d0f7d3c1a10",
  name: "Demo Clinic",
  webhookUrls: ["https://hooks.example.org/a"],
  hasWebhookSecret: true,
  otpEnabled: false,
  requireSecondFactor: false,
  sessionMethod: "none",
  hasSessionJwtSecret: false,
  sessionJwksUrl: null,
  sessionIntrospectionUrl: null,
  requireSessionVerification: false,
  sessionAudience: null,
  sessionIssuer: null,
  sessionRequireJti: false,
  sessionAcceptMissingAudIss: false,
  locale: "de",
  timeZone: "Europe/Berlin",
  phoneCountry: "DE",
  signedCopyDays: 30,
  signatureReminderDays: 0,
  staffSessionIdleMinutes: 60,
  staffSessionMaxHours: 12,
  webhookFormat: "native",
  updatedAt: "2025-11-21T10:00:00.000Z",
};

describe("settings form", () => {
  it("starts clean and notices changes", () => {
    const form = formStateFrom(settings);
    expect(isDirty(form, settings)).toBe(false);
    expect(isDirty({ ...form, webhookUrls: [...form.webhookUrls, "  "] }, settings)).toBe(false);
    expect(isDirty({ ...form, otpEnabled: true }, settings)).toBe(true);
    expect(isDirty({ ...form, sessionJwtSecret: "x" }, settings)).toBe(true);
    expect(isDirty({ ...form, webhookFormat: "both" }, settings)).toBe(true);
  });

  it("sends the webhook format (native, fhir, both)", () => {
    const form = formStateFrom(settings);
    expect(buildPayload(form).input.webhookFormat).toBe("native");
    expect(buildPayload({ ...form, webhookFormat: "fhir" }).input.webhookFormat).toBe("fhir");
  });

  it("drops empty URL rows, sends the secret only when typed, and only the selected method's URL", () => {
    const form = {
      ...formStateFrom(settings),
      webhookUrls: ["", " https://a.example/h ", ""],
      sessionMethod: "jwks" as const,
    };
    const { input, urlRows } = buildPayload({
      ...form,
      sessionJwksUrl: "https://idp.example/jwks",
      sessionIntrospectionUrl: "https://x",
    });
    expect(input.webhookUrls).toEqual(["https://a.example/h"]);
    expect(urlRows).toEqual([1]);
    expect(input).not.toHaveProperty("sessionJwtSecret");
    expect(input).not.toHaveProperty("sessionIntrospectionUrl");
    expect(input.sessionJwksUrl).toBe("https://idp.example/jwks");
  });

  it("sends the A4 audience and issuer trimmed, an emptied one as null, and notices their changes", () => {
    const saved = {
      ...settings,
      sessionMethod: "hs256" as const,
      hasSessionJwtSecret: true,
      sessionAudience: "clinsign",
      sessionIssuer: "https://portal.example",
    };
    const form = formStateFrom(saved);
    expect(isDirty(form, saved)).toBe(false);
    expect(isDirty({ ...form, sessionAudience: " clinsign " }, saved)).toBe(false);
    expect(isDirty({ ...form, sessionRequireJti: true }, saved)).toBe(true);
    expect(isDirty({ ...form, sessionAcceptMissingAudIss: true }, saved)).toBe(true);
    expect(buildPayload({ ...form, sessionAcceptMissingAudIss: true }).input).toMatchObject({
      sessionAcceptMissingAudIss: true,
    });
    const { input } = buildPayload({ ...form, sessionAudience: " api ", sessionIssuer: "  ", sessionRequireJti: true });
    expect(input).toMatchObject({ sessionAudience: "api", sessionIssuer: null, sessionRequireJti: true });
  });

  it("maps API field errors on webhookUrls.N back to the form's rows", () => {
    const errors = errorsFromFieldErrors([{ key: "webhookUrls.0", message: "must be an http(s) URL" }], [2], en);
    expect(errors).toEqual({ "webhookUrls.2": en.validation.url });
  });

  it("says in the reader's words why the API refused a webhook URL that delivery would refuse (issue 31)", () => {
    const refusal = (message: string) =>
      errorsFromFieldErrors([{ key: "webhookUrls.1", message }], [0, 3], en)["webhookUrls.3"];
    expect(refusal("must be an https URL: webhooks are delivered only over https (…)")).toBe(
      en.settings.webhookHttpsRequired,
    );
    expect(refusal("points at a private or loopback address, to which …")).toBe(en.settings.webhookPrivateAddress);
    expect(refusal("must not contain a user name or password")).toBe(en.settings.webhookCredentials);
  });

  it("checks URLs, duplicates and the session method before sending", () => {
    const form = {
      ...formStateFrom(settings),
      webhookUrls: ["ftp://nope", "https://a.example/h", "https://a.example/h"],
      sessionMethod: "hs256" as const,
      requireSessionVerification: true,
    };
    const errors = validate(form, buildPayload(form), settings, en);
    expect(errors["webhookUrls.0"]).toBe(en.validation.url);
    expect(errors["webhookUrls.2"]).toBe(en.validation.duplicateUrl);
    expect(errors.sessionJwtSecret).toBe(en.settings.jwtSecretRequired);
    expect(errors.sessionMethod).toBeUndefined();

    const none = { ...formStateFrom(settings), requireSessionVerification: true };
    expect(validate(none, buildPayload(none), settings, en).sessionMethod).toBe(en.settings.requireNeedsMethod);

    const short = { ...formStateFrom(settings), sessionMethod: "hs256" as const, sessionJwtSecret: "short" };
    expect(validate(short, buildPayload(short), settings, en).sessionJwtSecret).toBe(en.validation.secretLength);
  });

  it("edits the clinic's output language, time zone, phone country and signed-copy days", () => {
    const form = formStateFrom(settings);
    expect(form).toMatchObject({ locale: "de", timeZone: "Europe/Berlin", phoneCountry: "DE", signedCopyDays: "30" });
    for (const change of [
      { locale: "en" as const },
      { timeZone: "Europe/Vienna" },
      { phoneCountry: "AT" },
      { signedCopyDays: "90" },
    ]) {
      expect(isDirty({ ...form, ...change }, settings)).toBe(true);
    }
    const changed = {
      ...form,
      locale: "en" as const,
      timeZone: "Europe/Vienna",
      phoneCountry: "AT",
      signedCopyDays: " 90 ",
    };
    expect(buildPayload(changed).input).toMatchObject({
      locale: "en",
      timeZone: "Europe/Vienna",
      phoneCountry: "AT",
      signedCopyDays: 90,
    });
    expect(validate(changed, buildPayload(changed), settings, en).signedCopyDays).toBeUndefined();
    for (const days of ["", "-1", "2.5", "3651", "abc"]) {
      const bad = { ...form, signedCopyDays: days };
      expect(validate(bad, buildPayload(bad), settings, en).signedCopyDays).toBe(en.settings.signedCopyDaysInvalid);
    }
  });

  it("edits the reminder period: whole days from 0 (no reminders) to 90", () => {
    const form = formStateFrom(settings);
    expect(form.signatureReminderDays).toBe("0");
    const changed = { ...form, signatureReminderDays: " 7 " };
    expect(isDirty(changed, settings)).toBe(true);
    expect(buildPayload(changed).input.signatureReminderDays).toBe(7);
    expect(validate(changed, buildPayload(changed), settings, en).signatureReminderDays).toBeUndefined();
    for (const days of ["", "-1", "1.5", "91", "abc"]) {
      const bad = { ...form, signatureReminderDays: days };
      expect(validate(bad, buildPayload(bad), settings, en).signatureReminderDays).toBe(
        en.settings.signatureReminderDaysInvalid,
      );
    }
  });

  it("always offers the saved time zone and phone country, even ones the picker does not list", () => {
    expect(withCurrent(TIME_ZONES, "Asia/Tokyo")[0]).toBe("Asia/Tokyo");
    expect(withCurrent(PHONE_COUNTRIES, "DE").filter((c) => c === "DE")).toHaveLength(1);
  });
});
