import { z } from "zod";
import { httpUrl, isoDateTime } from "./common";

export const sessionVerificationMethods = ["none", "hs256", "jwks", "introspection"] as const;

export const organizationSettings = z.object({
  id: z.uuid(),
  name: z.string(),
  webhookUrls: z.array(z.string()),
  hasWebhookSecret: z.boolean(),
  otpEnabled: z.boolean(),
  sessionMethod: z.enum(sessionVerificationMethods),
  hasSessionJwtSecret: z.boolean(),
  sessionJwksUrl: z.string().nullable(),
  sessionIntrospectionUrl: z.string().nullable(),
  requireSessionVerification: z.boolean(),
  sessionAudience: z.string().nullable(),
  sessionIssuer: z.string().nullable(),
  sessionRequireJti: z.boolean(),
  updatedAt: isoDateTime,
});
export type OrganizationSettings = z.infer<typeof organizationSettings>;

const secret = z.string().min(16, { message: "must be at least 16 characters" }).max(512);

// An empty value would be a check nobody can configure on purpose; clearing is `null`.
const claimValue = z.string().trim().min(1, { message: "is required (use null to clear)" }).max(512);

export const updateOrganizationInput = z.object({
  name: z.string().trim().min(1, { message: "is required" }).max(200).optional(),
  webhookUrls: z.array(httpUrl).max(10, { message: "at most 10 webhook URLs" }).optional(),
  webhookSecret: secret.optional(),
  otpEnabled: z.boolean().optional(),
  sessionMethod: z.enum(sessionVerificationMethods).optional(),
  sessionJwtSecret: secret.optional(),
  sessionJwksUrl: httpUrl.nullish(),
  sessionIntrospectionUrl: httpUrl.nullish(),
  requireSessionVerification: z.boolean().optional(),
  /** A4 claim checks: `aud` must contain the audience, `iss` must equal the issuer; null clears. */
  sessionAudience: claimValue.nullish(),
  sessionIssuer: claimValue.nullish(),
  sessionRequireJti: z.boolean().optional(),
});
export type UpdateOrganizationInput = z.input<typeof updateOrganizationInput>;

export const rotatedSecret = z.object({ secret: z.string() });

export const createOrganizationInput = z.object({ name: z.string().trim().min(1).max(200) });
