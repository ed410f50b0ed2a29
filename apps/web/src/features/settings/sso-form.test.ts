import type { SsoSettings } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { en } from "../../i18n/en";
import { ssoFormStateFrom, typedDomains, validateSsoForm } from "./sso-form";

const settings: SsoSettings = {
  configured: true,
  enabled: true,
  displayName: "Klinik-Login",
  issuer: "https://login.klinik.example",
  clientId: "clinsign",
  hasClientSecret: true,
  allowedDomains: ["klinik.example"],
  domains: [],
  roleClaim: "groups",
  roleMapping: [{ value: "clinsign-staff", role: "staff" }],
  ssoOnly: false,
  breakGlassUserId: null,
  redirectUri: "https://clinsign.example/sso/callback",
  loginUrl: "https://clinsign.example/login/3f1c8f5e-8a56-4d7e-9d8e-2d0f7d3c1a10",
  owners: [],
  updatedAt: null,
};

describe("the single sign-on form", () => {
  it("sends the stored settings back as they were, keeping the stored secret", () => {
    const { errors, input } = validateSsoForm(ssoFormStateFrom(settings), true, en);
    expect(errors).toEqual({});
    expect(input).toEqual({
      enabled: true,
      displayName: "Klinik-Login",
      issuer: "https://login.klinik.example",
      clientId: "clinsign",
      allowedDomains: ["klinik.example"],
      roleClaim: "groups",
      roleMapping: [{ value: "clinsign-staff", role: "staff" }],
      ssoOnly: false,
      breakGlassUserId: null,
    });
  });

  it("reads domains however they are separated, and leaves out empty mapping rows", () => {
    expect(typedDomains(" klinik.example,  praxis.example;labor.example ")).toEqual([
      "klinik.example",
      "praxis.example",
      "labor.example",
    ]);
    const form = {
      ...ssoFormStateFrom(settings),
      roleMapping: [...settings.roleMapping, { value: " ", role: "admin" as const }],
    };
    expect(validateSsoForm(form, true, en).input.roleMapping).toHaveLength(1);
  });

  it("asks for a secret the first time, a domain, a mapping and a break-glass owner for SSO only", () => {
    const form = { ...ssoFormStateFrom(settings), allowedDomains: "", roleMapping: [], ssoOnly: true };
    expect(Object.keys(validateSsoForm(form, false, en).errors).sort()).toEqual([
      "allowedDomains",
      "breakGlassUserId",
      "clientSecret",
      "roleMapping",
    ]);
  });
});
