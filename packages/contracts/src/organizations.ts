import { z } from "zod";
import { httpUrl, isoDateTime } from "./common";

export const sessionVerificationMethods = ["none", "hs256", "jwks", "introspection"] as const;

/** Languages the clinic's outputs (PDF, CSV, SMS) are written in. */
export const organizationLocales = ["de", "en"] as const;
export type OrganizationLocale = (typeof organizationLocales)[number];

/** An IANA time zone name the runtime knows ("Europe/Berlin"). */
export const timeZoneName = z
  .string()
  .trim()
  .max(64)
  .refine(
    (name) => {
      try {
        new Intl.DateTimeFormat("en", { timeZone: name });
        return true;
      } catch {
        return false;
      }
    },
    { message: "is not a known time zone (e.g. Europe/Berlin)" },
  );

/** The longest wait before a reminder, for the organization and per request. */
export const MAX_SIGNATURE_REMINDER_DAYS = 90;

/**
 * What a `form.submitted` webhook carries: `native` (the interface document's body, the default),
 * `fhir` (the submission as a FHIR R4 QuestionnaireResponse instead), `both` (the native body with
 * the QuestionnaireResponse in `data.questionnaireResponse`).
 */
export const webhookFormats = ["native", "fhir", "both"] as const;
export type WebhookFormat = (typeof webhookFormats)[number];

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
  sessionAcceptMissingAudIss: z.boolean(),
  locale: z.enum(organizationLocales),
  timeZone: z.string(),
  phoneCountry: z.string(),
  signedCopyDays: z.number().int(),
  /** Days after which a signer who has not signed is reminded once by SMS; 0 = no reminders. */
  signatureReminderDays: z.number().int(),
  staffSessionIdleMinutes: z.number().int(),
  staffSessionMaxHours: z.number().int(),
  /** Everyone who signs in with a password needs a second factor (authenticator app or passkey). */
  requireSecondFactor: z.boolean(),
  webhookFormat: z.enum(webhookFormats),
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
  /**
   * With an audience or issuer configured, a token without that claim is refused unless this is
   * true (some introspection endpoints omit them); a claim that is present must still match.
   */
  sessionAcceptMissingAudIss: z.boolean().optional(),
  locale: z.enum(organizationLocales).optional(),
  timeZone: timeZoneName.optional(),
  phoneCountry: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, { message: "must be a two-letter country code (e.g. DE)" })
    .transform((code) => code.toUpperCase())
    .optional(),
  signedCopyDays: z.number().int().min(0).max(3650).optional(),
  /** Remind a signer who has not signed after this many days (0 = never, at most 90). */
  signatureReminderDays: z.number().int().min(0).max(MAX_SIGNATURE_REMINDER_DAYS).optional(),
  /** A staff session ends after this many minutes without a request (5 min to 24 h). */
  staffSessionIdleMinutes: z.number().int().min(5).max(1440).optional(),
  /** A staff session ends this many hours after sign-in, however busy (1 h to 30 days). */
  staffSessionMaxHours: z.number().int().min(1).max(720).optional(),
  requireSecondFactor: z.boolean().optional(),
  webhookFormat: z.enum(webhookFormats, { message: "must be one of native, fhir, both" }).optional(),
});
export type UpdateOrganizationInput = z.input<typeof updateOrganizationInput>;

export const rotatedSecret = z.object({ secret: z.string() });

export const createOrganizationInput = z.object({ name: z.string().trim().min(1).max(200) });
