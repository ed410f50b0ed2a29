import {
  MAX_SIGNATURE_REMINDER_DAYS,
  updateOrganizationInput,
  type FieldError,
  type OrganizationSettings,
  type UpdateOrganizationInput,
} from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";
import { translateValidationMessage } from "../../trpc/errors";

export type SessionMethod = OrganizationSettings["sessionMethod"];

/** What the settings form edits. Secrets are write-only: the field starts empty. */
export interface SettingsFormState {
  name: string;
  webhookUrls: string[];
  otpEnabled: boolean;
  requireSecondFactor: boolean;
  sessionMethod: SessionMethod;
  sessionJwtSecret: string;
  sessionJwksUrl: string;
  sessionIntrospectionUrl: string;
  requireSessionVerification: boolean;
  sessionAudience: string;
  sessionIssuer: string;
  sessionRequireJti: boolean;
  locale: OrganizationSettings["locale"];
  timeZone: string;
  phoneCountry: string;
  /** As typed: checked to be a whole number of days before it is sent. */
  signedCopyDays: string;
  /** Days until an unsigned request's signer is reminded (0 = never), as typed. */
  signatureReminderDays: string;
  /** As typed, like the other whole numbers (WHOLE_NUMBER_FIELDS). */
  staffSessionIdleMinutes: string;
  staffSessionMaxHours: string;
  sessionAcceptMissingAudIss: boolean;
  webhookFormat: OrganizationSettings["webhookFormat"];
}

export const MAX_SIGNED_COPY_DAYS = 3650;

/** The settings typed as whole numbers, with the range the API accepts (contracts: updateOrganizationInput). */
export const WHOLE_NUMBER_FIELDS = {
  signedCopyDays: { min: 0, max: MAX_SIGNED_COPY_DAYS },
  signatureReminderDays: { min: 0, max: MAX_SIGNATURE_REMINDER_DAYS },
  staffSessionIdleMinutes: { min: 5, max: 1440 },
  staffSessionMaxHours: { min: 1, max: 720 },
} as const;
export type WholeNumberField = keyof typeof WHOLE_NUMBER_FIELDS;
const wholeNumberFields = Object.keys(WHOLE_NUMBER_FIELDS) as WholeNumberField[];

/** The typed value as a number when it is a whole number in its field's range, else null. */
function wholeNumber(form: SettingsFormState, field: WholeNumberField): number | null {
  const text = form[field].trim();
  const { min, max } = WHOLE_NUMBER_FIELDS[field];
  return /^\d{1,5}$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : null;
}

/** Time zones offered in the picker (the clinic's region first); the saved one is always offered too. */
export const TIME_ZONES = [
  "Europe/Berlin",
  "Europe/Vienna",
  "Europe/Zurich",
  "Europe/Luxembourg",
  "Europe/Amsterdam",
  "Europe/Brussels",
  "Europe/Paris",
  "Europe/Rome",
  "Europe/Madrid",
  "Europe/Lisbon",
  "Europe/London",
  "Europe/Dublin",
  "Europe/Copenhagen",
  "Europe/Stockholm",
  "Europe/Oslo",
  "Europe/Helsinki",
  "Europe/Warsaw",
  "Europe/Prague",
  "Europe/Budapest",
  "Europe/Athens",
  "Europe/Istanbul",
  "UTC",
  "America/New_York",
  "America/Chicago",
  "America/Los_Angeles",
] as const;

/** Countries offered for national phone numbers; the saved one is always offered too. */
export const PHONE_COUNTRIES = [
  "DE",
  "AT",
  "CH",
  "LI",
  "LU",
  "NL",
  "BE",
  "FR",
  "IT",
  "ES",
  "PT",
  "GB",
  "IE",
  "DK",
  "SE",
  "NO",
  "FI",
  "PL",
  "CZ",
  "HU",
  "GR",
  "TR",
  "US",
] as const;

/** `list` with `current` added when an API client saved a value the picker does not offer. */
export const withCurrent = (list: readonly string[], current: string): string[] =>
  list.includes(current) ? [...list] : [current, ...list];

/** Field key (as the API reports it, e.g. `webhookUrls.2`) → message. */
export type SettingsErrors = Record<string, string>;

export const MAX_WEBHOOK_URLS = 10;

export function formStateFrom(settings: OrganizationSettings): SettingsFormState {
  return {
    name: settings.name,
    webhookUrls: [...settings.webhookUrls],
    otpEnabled: settings.otpEnabled,
    requireSecondFactor: settings.requireSecondFactor,
    sessionMethod: settings.sessionMethod,
    sessionJwtSecret: "",
    sessionJwksUrl: settings.sessionJwksUrl ?? "",
    sessionIntrospectionUrl: settings.sessionIntrospectionUrl ?? "",
    requireSessionVerification: settings.requireSessionVerification,
    sessionAudience: settings.sessionAudience ?? "",
    sessionIssuer: settings.sessionIssuer ?? "",
    sessionRequireJti: settings.sessionRequireJti,
    locale: settings.locale,
    timeZone: settings.timeZone,
    phoneCountry: settings.phoneCountry,
    signedCopyDays: String(settings.signedCopyDays),
    signatureReminderDays: String(settings.signatureReminderDays),
    staffSessionIdleMinutes: String(settings.staffSessionIdleMinutes),
    staffSessionMaxHours: String(settings.staffSessionMaxHours),
    sessionAcceptMissingAudIss: settings.sessionAcceptMissingAudIss,
    webhookFormat: settings.webhookFormat,
  };
}

export function isDirty(form: SettingsFormState, settings: OrganizationSettings): boolean {
  const saved = formStateFrom(settings);
  const trimmedUrls = (urls: string[]) => urls.map((url) => url.trim()).filter(Boolean);
  return (
    form.name !== saved.name ||
    JSON.stringify(trimmedUrls(form.webhookUrls)) !== JSON.stringify(saved.webhookUrls) ||
    form.otpEnabled !== saved.otpEnabled ||
    form.requireSecondFactor !== saved.requireSecondFactor ||
    form.sessionMethod !== saved.sessionMethod ||
    form.sessionJwtSecret !== "" ||
    (form.sessionMethod === "jwks" && form.sessionJwksUrl.trim() !== saved.sessionJwksUrl) ||
    (form.sessionMethod === "introspection" && form.sessionIntrospectionUrl.trim() !== saved.sessionIntrospectionUrl) ||
    form.requireSessionVerification !== saved.requireSessionVerification ||
    form.sessionAudience.trim() !== saved.sessionAudience ||
    form.sessionIssuer.trim() !== saved.sessionIssuer ||
    form.sessionRequireJti !== saved.sessionRequireJti ||
    form.locale !== saved.locale ||
    form.timeZone !== saved.timeZone ||
    form.phoneCountry !== saved.phoneCountry ||
    wholeNumberFields.some((field) => form[field].trim() !== saved[field]) ||
    form.sessionAcceptMissingAudIss !== saved.sessionAcceptMissingAudIss ||
    form.webhookFormat !== saved.webhookFormat
  );
}

export interface SettingsPayload {
  input: UpdateOrganizationInput;
  /** Index in `input.webhookUrls` → index of the form's row (empty rows are left out). */
  urlRows: number[];
}

/**
 * The update to send. Empty URL rows are dropped; the secret only goes out when typed; a URL of
 * a method that is not selected is left as it is.
 */
export function buildPayload(form: SettingsFormState): SettingsPayload {
  const rows = form.webhookUrls.map((url, row) => ({ url: url.trim(), row })).filter((entry) => entry.url);
  const input: UpdateOrganizationInput = {
    name: form.name,
    webhookUrls: rows.map((entry) => entry.url),
    otpEnabled: form.otpEnabled,
    requireSecondFactor: form.requireSecondFactor,
    sessionMethod: form.sessionMethod,
    requireSessionVerification: form.requireSessionVerification,
    // An emptied field clears the check.
    sessionAudience: form.sessionAudience.trim() || null,
    sessionIssuer: form.sessionIssuer.trim() || null,
    sessionRequireJti: form.sessionRequireJti,
    locale: form.locale,
    timeZone: form.timeZone,
    phoneCountry: form.phoneCountry,
    sessionAcceptMissingAudIss: form.sessionAcceptMissingAudIss,
    webhookFormat: form.webhookFormat,
  };
  // Only a whole number goes out; anything else is caught by `validate` before sending.
  for (const field of wholeNumberFields) {
    const value = wholeNumber(form, field);
    if (value !== null) input[field] = value;
  }
  if (form.sessionJwtSecret) input.sessionJwtSecret = form.sessionJwtSecret;
  if (form.sessionMethod === "jwks") input.sessionJwksUrl = form.sessionJwksUrl.trim() || null;
  if (form.sessionMethod === "introspection")
    input.sessionIntrospectionUrl = form.sessionIntrospectionUrl.trim() || null;
  return { input, urlRows: rows.map((entry) => entry.row) };
}

/**
 * The API's refusals of a webhook URL that delivery would refuse (core/webhooks/destinations.ts),
 * by how their messages begin, in the reader's language (Settings, and a personal link's webhook).
 */
export function webhookUrlMessage(message: string, t: Dictionary): string | undefined {
  if (message.startsWith("must be an https URL")) return t.settings.webhookHttpsRequired;
  if (message.startsWith("points at a private or loopback address")) return t.settings.webhookPrivateAddress;
  if (message.startsWith("must not contain a user name or password")) return t.settings.webhookCredentials;
  return undefined;
}

/** Puts field errors at the form's own keys: `webhookUrls.N` counts non-empty rows only. */
export function errorsFromFieldErrors(issues: readonly FieldError[], urlRows: number[], t: Dictionary): SettingsErrors {
  const errors: SettingsErrors = {};
  for (const { key, message } of issues) {
    const match = /^webhookUrls\.(\d+)$/.exec(key);
    const formKey = match ? `webhookUrls.${urlRows[Number(match[1])] ?? match[1]}` : key || "form";
    errors[formKey] ??= (match && webhookUrlMessage(message, t)) || translateValidationMessage(message, t);
  }
  return errors;
}

/** The message for an API error that names one field in `details.field` (session method checks). */
export function messageForDetailField(field: string, t: Dictionary): string | undefined {
  return (
    {
      sessionJwtSecret: t.settings.jwtSecretRequired,
      sessionJwksUrl: t.settings.jwksUrlRequired,
      sessionIntrospectionUrl: t.settings.introspectionUrlRequired,
      sessionMethod: t.settings.requireNeedsMethod,
    } as Record<string, string>
  )[field];
}

/** The same checks the API makes, run before sending so errors show at once. */
export function validate(
  form: SettingsFormState,
  payload: SettingsPayload,
  settings: OrganizationSettings,
  t: Dictionary,
): SettingsErrors {
  const parsed = updateOrganizationInput.safeParse(payload.input);
  const errors = parsed.success
    ? {}
    : errorsFromFieldErrors(
        parsed.error.issues.map((issue) => ({ key: issue.path.join("."), message: issue.message })),
        payload.urlRows,
        t,
      );

  const seen = new Map<string, number>();
  form.webhookUrls.forEach((url, row) => {
    const normalized = url.trim();
    if (!normalized) return;
    if (seen.has(normalized)) errors[`webhookUrls.${row}`] ??= t.validation.duplicateUrl;
    else seen.set(normalized, row);
  });

  const method = form.sessionMethod;
  if (method === "hs256" && !settings.hasSessionJwtSecret && !form.sessionJwtSecret)
    errors.sessionJwtSecret ??= t.settings.jwtSecretRequired;
  if (method === "jwks" && !form.sessionJwksUrl.trim()) errors.sessionJwksUrl ??= t.settings.jwksUrlRequired;
  if (method === "introspection" && !form.sessionIntrospectionUrl.trim()) {
    errors.sessionIntrospectionUrl ??= t.settings.introspectionUrlRequired;
  }
  if (form.requireSessionVerification && method === "none") errors.sessionMethod ??= t.settings.requireNeedsMethod;
  for (const field of wholeNumberFields)
    if (wholeNumber(form, field) === null) errors[field] = t.settings[`${field}Invalid`];
  return errors;
}
