import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { ErrorCode, FieldError } from "@clinsign/contracts";

/** The one error type services throw. Each door renders it in its own envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Field-level problems (area B renders them as `fieldErrors`). */
    readonly fieldErrors?: FieldError[],
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** The single mapping from error codes to HTTP statuses and tRPC codes. */
export const errorMapping: Record<ErrorCode, { status: number; trpc: TRPC_ERROR_CODE_KEY }> = {
  invalid_request: { status: 400, trpc: "BAD_REQUEST" },
  unauthorized: { status: 401, trpc: "UNAUTHORIZED" },
  forbidden: { status: 403, trpc: "FORBIDDEN" },
  https_required: { status: 403, trpc: "FORBIDDEN" },
  not_found: { status: 404, trpc: "NOT_FOUND" },
  conflict: { status: 409, trpc: "CONFLICT" },
  payload_too_large: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  unsupported_media_type: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  rate_limited: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  internal_error: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  service_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
};

export const notFound = (what: string, details: Record<string, unknown> = {}) =>
  new AppError("not_found", `${what} not found`, details);
export const unauthorized = (message = "invalid or missing credentials") => new AppError("unauthorized", message);

/**
 * The one translation of a failed zod parse into an AppError, for every door (REST input, the
 * staff console's file routes, multipart JSON fields, the tRPC error formatter): 400
 * `invalid_request`, every issue as a field error, the first one in the message and
 * `details.field`. An issue on the value itself is keyed `root`; the message names the field
 * unless that is the anonymous `body`.
 */
export function fromZodError(error: { issues: readonly ZodIssueLike[] }, root = "body"): AppError {
  const fieldErrors = error.issues.map((issue) => ({
    key: issue.path.map(String).join(".") || root,
    message: issue.message,
  }));
  const first = fieldErrors[0] ?? { key: root, message: "invalid input" };
  return new AppError(
    "invalid_request",
    first.key === "body" ? first.message : `${first.key}: ${first.message}`,
    { field: first.key },
    fieldErrors,
  );
}

interface ZodIssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}
