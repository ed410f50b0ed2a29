import {
  saveFhirPushTargetInput,
  type FhirPushAuthKind,
  type FhirPushTarget,
  type SaveFhirPushTargetInput,
} from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";
import { describeApiError, translateValidationMessage, type ApiError } from "../../trpc/errors";

/** The FHIR server form as typed: every field as text, the credential empty unless one is entered. */
export interface FhirPushFormState {
  enabled: boolean;
  baseUrl: string;
  auth: FhirPushAuthKind;
  /** The bearer token, client secret or PEM key being entered; empty keeps a stored one that fits. */
  secret: string;
  clientId: string;
  tokenUrl: string;
  scope: string;
  patientIdSystem: string;
  rnummerSystem: string;
}

export type FhirPushFormKey = keyof FhirPushFormState;
export type FhirPushErrors = Partial<Record<FhirPushFormKey | "form", string>>;

/** What the credential of a kind is, and so which field takes it. */
export type CredentialKind = "token" | "clientSecret" | "privateKey";

/** What each kind of authentication asks for besides the base URL: a client (id, token URL, scope), a credential. */
export const authNeeds: Record<FhirPushAuthKind, { client: boolean; credential: CredentialKind | null }> = {
  none: { client: false, credential: null },
  bearer: { client: false, credential: "token" },
  client_credentials: { client: true, credential: "clientSecret" },
  smart_backend: { client: true, credential: "privateKey" },
};

const FORM_KEYS: readonly FhirPushFormKey[] = [
  "enabled",
  "baseUrl",
  "auth",
  "secret",
  "clientId",
  "tokenUrl",
  "scope",
  "patientIdSystem",
  "rnummerSystem",
];

export function fhirPushFormFrom(target: FhirPushTarget | null): FhirPushFormState {
  return {
    enabled: target?.enabled ?? false,
    baseUrl: target?.baseUrl ?? "",
    auth: target?.auth ?? "none",
    secret: "",
    clientId: target?.clientId ?? "",
    tokenUrl: target?.tokenUrl ?? "",
    scope: target?.scope ?? "",
    patientIdSystem: target?.patientIdSystem ?? "",
    rnummerSystem: target?.rnummerSystem ?? "",
  };
}

/**
 * Whether the stored credential serves the kind chosen: only for the kind it was saved with (a
 * bearer token is no PEM key), so changing the kind asks for a new one.
 */
export const storedCredentialFits = (target: FhirPushTarget | null, auth: FhirPushAuthKind) =>
  Boolean(target?.hasSecret && target.auth === auth && authNeeds[auth].credential);

/** A setting that is sent only when something was typed: left out, the server stores none. */
const typed = <Key extends string>(key: Key, value: string | undefined) =>
  value?.trim() ? ({ [key]: value.trim() } as Record<Key, string>) : {};

/** The call's input as the form stands: only the fields the chosen kind uses, the credential only when typed. */
export function fhirPushInput(form: FhirPushFormState): SaveFhirPushTargetInput {
  const needs = authNeeds[form.auth];
  const client = needs.client ? form : null;
  return {
    enabled: form.enabled,
    baseUrl: form.baseUrl.trim(),
    auth: form.auth,
    ...typed("secret", needs.credential ? form.secret : undefined),
    ...typed("clientId", client?.clientId),
    ...typed("tokenUrl", client?.tokenUrl),
    ...typed("scope", client?.scope),
    ...typed("patientIdSystem", form.patientIdSystem),
    ...typed("rnummerSystem", form.rnummerSystem),
  };
}

/**
 * The API's messages about this form in the reader's language: the contracts' checks, and the
 * outbound rule's refusals of a URL (core/webhooks/destinations.ts), known by how they begin.
 */
export function fhirPushMessage(message: string, t: Dictionary): string {
  const f = t.fhirPush;
  const known: Array<[string, string]> = [
    ["must be an http(s) URL", f.urlInvalid],
    ["must be an https URL", f.httpsRequired],
    ["points at a private or loopback address", f.privateAddress],
    ["must not contain a user name or password", f.urlCredentials],
    ["must be a URI", f.systemInvalid],
    ["is required", t.validation.required],
  ];
  return known.find(([start]) => message.startsWith(start))?.[1] ?? translateValidationMessage(message, t);
}

/** A field key of the API (`tokenUrl`, `baseUrl.0`) as the form's own, or null when the form has no such field. */
function formKey(key: string): FhirPushFormKey | null {
  const field = key.split(".")[0] ?? key;
  return FORM_KEYS.find((k) => k === field) ?? null;
}

/**
 * What the browser can check before saving: the contracts' rules, and a credential where the kind
 * needs one and none is stored for it. Empty when the input may be sent.
 */
export function validateFhirPushForm(
  form: FhirPushFormState,
  target: FhirPushTarget | null,
  t: Dictionary,
): FhirPushErrors {
  const errors: FhirPushErrors = {};
  const parsed = saveFhirPushTargetInput.safeParse(fhirPushInput(form));
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const key = formKey(issue.path.map(String).join("."));
    if (key) errors[key] ??= fhirPushMessage(issue.message, t);
  }
  const credential = authNeeds[form.auth].credential;
  if (credential && !form.secret.trim() && !storedCredentialFits(target, form.auth))
    errors.secret ??= t.fhirPush.credentialRequired[credential];
  return errors;
}

/** The server's word on a failed save: at the field it names, else above the form. */
export function fhirPushSaveErrors(apiError: ApiError, t: Dictionary): FhirPushErrors {
  const errors: FhirPushErrors = {};
  for (const { key, message } of apiError.fieldErrors) {
    const field = formKey(key);
    if (field) errors[field] ??= fhirPushMessage(message, t);
  }
  const detail = typeof apiError.details.field === "string" ? formKey(apiError.details.field) : null;
  if (detail && !errors[detail]) errors[detail] = fhirPushMessage(apiError.message.replace(/^\w+: /, ""), t);
  if (Object.keys(errors).length === 0) errors.form = describeApiError(apiError, t);
  return errors;
}
