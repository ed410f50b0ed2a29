import type { FhirPushTarget } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { de } from "../../i18n/de";
import { en } from "../../i18n/en";
import type { ApiError } from "../../trpc/errors";
import { fhirPushFormFrom, fhirPushInput, fhirPushSaveErrors, validateFhirPushForm } from "./fhir-push-form";

const target: FhirPushTarget = {
  enabled: true,
  baseUrl: "https://fhir.klinik.example/r4",
  auth: "client_credentials",
  hasSecret: true,
  clientId: "clinsign",
  tokenUrl: "https://auth.klinik.example/token",
  scope: "system/*.write",
  patientIdSystem: "urn:oid:1.2.276.0.76.4.8",
  rnummerSystem: "https://klinik.example/fhir/sid/fallnummer",
  updatedAt: "2026-11-29T10:00:00.000Z",
};

const refusal = (key: string, message: string): ApiError => ({
  code: "BAD_REQUEST",
  appCode: "invalid_request",
  message: `${key}: ${message}`,
  fieldErrors: [{ key, message }],
  details: { field: key },
});

describe("the FHIR server form", () => {
  it("sends the stored settings back as they were, keeping the stored secret", () => {
    const form = fhirPushFormFrom(target);
    expect(validateFhirPushForm(form, target, en)).toEqual({});
    expect(fhirPushInput(form)).toEqual({
      enabled: true,
      baseUrl: "https://fhir.klinik.example/r4",
      auth: "client_credentials",
      clientId: "clinsign",
      tokenUrl: "https://auth.klinik.example/token",
      scope: "system/*.write",
      patientIdSystem: "urn:oid:1.2.276.0.76.4.8",
      rnummerSystem: "https://klinik.example/fhir/sid/fallnummer",
    });
  });

  it("sends only what the chosen kind uses, and leaves empty identifier systems out", () => {
    const form = { ...fhirPushFormFrom(target), auth: "bearer" as const, secret: "  tok-123 ", rnummerSystem: " " };
    expect(fhirPushInput(form)).toEqual({
      enabled: true,
      baseUrl: "https://fhir.klinik.example/r4",
      auth: "bearer",
      secret: "tok-123",
      patientIdSystem: "urn:oid:1.2.276.0.76.4.8",
    });
    expect(fhirPushInput({ ...form, auth: "none" })).not.toHaveProperty("secret");
  });

  it("starts empty, without authentication, before a server was saved", () => {
    const form = fhirPushFormFrom(null);
    expect(form).toMatchObject({ enabled: false, baseUrl: "", auth: "none", secret: "" });
    expect(validateFhirPushForm(form, null, en)).toEqual({ baseUrl: en.fhirPush.urlInvalid });
  });

  it("asks for a credential the first time, and again when the kind changes from the stored one's", () => {
    const bearer = { ...fhirPushFormFrom(null), baseUrl: "https://fhir.klinik.example", auth: "bearer" as const };
    expect(validateFhirPushForm(bearer, null, en)).toEqual({ secret: en.fhirPush.credentialRequired.token });
    // The stored client secret is no PEM key.
    const smart = { ...fhirPushFormFrom(target), auth: "smart_backend" as const };
    expect(validateFhirPushForm(smart, target, de)).toEqual({ secret: de.fhirPush.credentialRequired.privateKey });
  });

  it("checks what the contract checks: the client of OAuth2, URLs and identifier systems", () => {
    const form = {
      ...fhirPushFormFrom(target),
      clientId: "",
      tokenUrl: "auth.klinik.example/token",
      patientIdSystem: "not a uri",
    };
    expect(validateFhirPushForm(form, target, en)).toEqual({
      clientId: en.validation.required,
      tokenUrl: en.fhirPush.urlInvalid,
      patientIdSystem: en.fhirPush.systemInvalid,
    });
  });

  it("puts the server's refusal of an http URL at its field, in the reader's language", () => {
    const message =
      "must be an https URL: webhooks are delivered only over https (plain http only to a host the deployment allows in OUTBOUND_ALLOW_HOSTS)";
    expect(fhirPushSaveErrors(refusal("baseUrl", message), de)).toEqual({ baseUrl: de.fhirPush.httpsRequired });
    expect(fhirPushSaveErrors(refusal("tokenUrl", "points at a private or loopback address, …"), en)).toEqual({
      tokenUrl: en.fhirPush.privateAddress,
    });
  });

  it("says a refusal that names no field of the form above it", () => {
    const forbidden: ApiError = {
      code: "FORBIDDEN",
      appCode: "forbidden",
      message: "no",
      fieldErrors: [],
      details: {},
    };
    expect(fhirPushSaveErrors(forbidden, en)).toEqual({ form: en.errors.forbidden });
  });
});
