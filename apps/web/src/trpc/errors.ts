import type { FieldError } from "@clinsign/contracts";
import { format, type Dictionary } from "../i18n";

/** What the UI needs to know about a failed call. */
export interface ApiError {
  /** tRPC code, e.g. UNAUTHORIZED, TOO_MANY_REQUESTS, BAD_REQUEST; undefined when the server was not reached. */
  code: string | undefined;
  appCode: string | undefined;
  message: string;
  fieldErrors: FieldError[];
  details: Record<string, unknown>;
}

interface ErrorData {
  code?: string;
  appCode?: string;
  fieldErrors?: FieldError[];
  details?: Record<string, unknown>;
}

export function readApiError(error: unknown): ApiError {
  // tRPC's client errors and the patient pages' own (features/patient/api.ts) both carry `data`.
  const raw = error instanceof Error && "data" in error ? (error as { data: unknown }).data : undefined;
  const data: ErrorData | undefined = raw && typeof raw === "object" ? (raw as ErrorData) : undefined;
  return {
    code: data?.code,
    appCode: data?.appCode,
    message: error instanceof Error ? error.message : String(error),
    fieldErrors: Array.isArray(data?.fieldErrors) ? data.fieldErrors : [],
    details: data?.details && typeof data.details === "object" ? data.details : {},
  };
}

export function isUnauthorized(error: unknown): boolean {
  return readApiError(error).code === "UNAUTHORIZED";
}

/** The server was not reached (no network, or it dropped on the way): no answer came. */
export function isUnreached(error: unknown): boolean {
  return readApiError(error).code === undefined;
}

/** A 4xx answer will not change by asking again. */
export function isClientError(error: unknown): boolean {
  const code = readApiError(error).code;
  return (
    code !== undefined &&
    !["INTERNAL_SERVER_ERROR", "BAD_GATEWAY", "SERVICE_UNAVAILABLE", "GATEWAY_TIMEOUT", "TIMEOUT"].includes(code)
  );
}

/** Minutes to wait, from a rate-limit answer's details.retryAfterSeconds. */
export function retryAfterMinutes(error: ApiError): number | undefined {
  const seconds = error.details.retryAfterSeconds;
  return typeof seconds === "number" && seconds > 0 ? Math.max(1, Math.ceil(seconds / 60)) : undefined;
}

/** A sentence for the person in front of the screen, in their language. */
export function describeApiError(error: ApiError, t: Pick<Dictionary, "errors" | "validation">): string {
  switch (error.code) {
    case undefined:
      return t.errors.network;
    case "FORBIDDEN":
      return t.errors.forbidden;
    case "TOO_MANY_REQUESTS": {
      const minutes = retryAfterMinutes(error);
      return minutes ? format(t.errors.rateLimitedMinutes, { minutes }) : t.errors.rateLimited;
    }
    case "BAD_REQUEST":
      return error.fieldErrors.length > 0 ? t.validation.checkFields : error.message;
    default:
      return t.errors.generic;
  }
}

/**
 * The contracts' validation messages (English, shared with the API) in the UI's language.
 * Unknown messages are shown as they came, which beats hiding them.
 */
export function translateValidationMessage(message: string, t: Dictionary): string {
  const known: Array<[RegExp, string]> = [
    [/^is required$/, t.validation.required],
    [/^enter a valid e-mail address$/, t.validation.email],
    [/^enter your password$/, t.validation.password],
    [/^must be an http\(s\) URL$/, t.validation.url],
    [/^must be at least 16 characters$/, t.validation.secretLength],
    [/^must be at most \d+ characters$/, t.validation.tooLong],
    [/^at most 10 webhook URLs$/, t.validation.tooManyUrls],
  ];
  return known.find(([pattern]) => pattern.test(message))?.[1] ?? message;
}
