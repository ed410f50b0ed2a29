import { z } from "zod";
import { stepUpInput } from "./auth";
import { httpUrl, isoDateTime } from "./common";

/** A lower-case e-mail domain (`klinik.example`), without `@`. */
export const emailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/^@/, ""))
  .pipe(
    z
      .string()
      .max(253)
      .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
        message: "is not an e-mail domain (e.g. klinik.example)",
      }),
  );

/** The roles single sign-on may grant: never `owner` (owners are made by owners, in the console). */
export const ssoMappableRoles = ["admin", "staff", "viewer"] as const;
export const ssoRoleMapping = z.object({
  value: z.string().trim().min(1, { message: "is required" }).max(256),
  role: z.enum(ssoMappableRoles, { message: "single sign-on grants admin, staff or viewer, never owner" }),
});
export type SsoRoleMapping = z.infer<typeof ssoRoleMapping>;

/**
 * An e-mail domain the organization claims for single sign-on. It counts (routes the login page,
 * admits new accounts of that domain) only once proven: a DNS TXT record `txtName` with the value
 * `txtValue`. Until then it blocks nobody; once proven, no other organization can prove it.
 */
export const ssoDomainState = z.object({
  domain: z.string(),
  verified: z.boolean(),
  verifiedAt: isoDateTime.nullable(),
  /** Where the TXT record goes (`_clinsign-challenge.<domain>`). */
  txtName: z.string(),
  /** The record's value (`clinsign-domain-verification=<token>`). */
  txtValue: z.string(),
});
export type SsoDomainState = z.infer<typeof ssoDomainState>;

/** What an admin sees of the organization's OpenID Connect settings: never the client secret. */
export const ssoSettings = z.object({
  configured: z.boolean(),
  enabled: z.boolean(),
  displayName: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  allowedDomains: z.array(z.string()),
  /** Each claimed domain and whether it is proven. */
  domains: z.array(ssoDomainState),
  roleClaim: z.string(),
  roleMapping: z.array(ssoRoleMapping),
  ssoOnly: z.boolean(),
  breakGlassUserId: z.uuid().nullable(),
  /** The redirect URI to register at the provider. */
  redirectUri: z.string(),
  /** The organization's login URL, which offers its provider whatever address is typed. */
  loginUrl: z.string(),
  /** Owners who may be named the break-glass account. */
  owners: z.array(z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() })),
  updatedAt: isoDateTime.nullable(),
});
export type SsoSettings = z.infer<typeof ssoSettings>;

export const saveSsoSettingsInput = z.object({
  enabled: z.boolean(),
  displayName: z.string().trim().min(1, { message: "is required" }).max(80),
  issuer: httpUrl,
  clientId: z.string().trim().min(1, { message: "is required" }).max(512),
  /** Omitted: the stored secret stays. Required the first time. */
  clientSecret: z.string().min(1).max(1024).optional(),
  allowedDomains: z.array(emailDomain).min(1, { message: "name at least one e-mail domain" }).max(20),
  roleClaim: z
    .string()
    .trim()
    .min(1, { message: "is required" })
    .max(200)
    .regex(/^[^\s]+$/, { message: "is a claim name without spaces (e.g. groups)" }),
  roleMapping: z.array(ssoRoleMapping).min(1, { message: "map at least one value to a role" }).max(100),
  ssoOnly: z.boolean(),
  breakGlassUserId: z.uuid().nullable(),
  /** Owners only, and each save asks again (step-up). */
  stepUp: stepUpInput,
});
export type SaveSsoSettingsInput = z.infer<typeof saveSsoSettingsInput>;

/** Checks a claimed domain's DNS TXT record now (owners). */
export const verifySsoDomainInput = z.object({ domain: emailDomain });
export const verifySsoDomainResult = z.object({
  domain: z.string(),
  verified: z.boolean(),
  /** Why it is not proven: `not_found` (no matching TXT record yet), `dns_error`, `claimed` (another organization proved it). */
  problem: z.enum(["not_found", "dns_error", "claimed"]).nullable(),
});
export type VerifySsoDomainResult = z.infer<typeof verifySsoDomainResult>;

/**
 * An organization's provider signed in someone whose address already has a ClinSign account not
 * yet connected to that provider: the account must prove itself in this browser (its password,
 * then its own second factor), then the person confirms (`auth.ssoLink*`, the link cookie).
 */
export const ssoLinkDescription = z.object({
  organization: z.object({ id: z.uuid(), name: z.string() }),
  /** The provider's name as the organization set it ("Klinik-Login"). */
  provider: z.string(),
  email: z.string(),
  role: z.enum(ssoMappableRoles),
  /** `password`: prove the account; `confirm`: proven, confirm or cancel. */
  step: z.enum(["password", "confirm"]),
});
export type SsoLinkDescription = z.infer<typeof ssoLinkDescription>;
export const ssoLinkPasswordInput = z.object({
  password: z.string().min(1, { message: "enter your password" }).max(1024),
});

/** The login page's questions: which provider serves this address, or this organization's login URL. */
export const ssoLookupInput = z.union([
  z.object({ email: z.string().trim().toLowerCase().max(320) }),
  z.object({ organizationId: z.uuid() }),
]);
export const ssoLookupOutput = z.object({
  provider: z.object({ organizationId: z.uuid(), displayName: z.string() }).nullable(),
});
export type SsoLookupOutput = z.infer<typeof ssoLookupOutput>;

/** Why an SSO callback sent the browser back to the login page (`/login?sso_error=…`). */
export const ssoErrorCodes = ["expired", "cancelled", "domain", "no_role", "unavailable", "failed"] as const;
export type SsoErrorCode = (typeof ssoErrorCodes)[number];
