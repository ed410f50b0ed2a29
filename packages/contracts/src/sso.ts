import { z } from "zod";
import { role } from "./auth";
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

export const ssoRoleMapping = z.object({
  value: z.string().trim().min(1, { message: "is required" }).max(256),
  role,
});
export type SsoRoleMapping = z.infer<typeof ssoRoleMapping>;

/** What an admin sees of the organization's OpenID Connect settings: never the client secret. */
export const ssoSettings = z.object({
  configured: z.boolean(),
  enabled: z.boolean(),
  displayName: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  allowedDomains: z.array(z.string()),
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
});
export type SaveSsoSettingsInput = z.infer<typeof saveSsoSettingsInput>;

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
