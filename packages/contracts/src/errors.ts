import { z } from "zod";
import { fieldProblemCodes } from "./form-validation";

/** Every error the service can report; one table in the API maps these to HTTP and tRPC. */
export const errorCodes = [
  "invalid_request",
  "unauthorized",
  "forbidden",
  "https_required",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  /** A backing service (object storage) failed; retrying later may succeed. */
  "service_unavailable",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** Area A: `{"error": {"code", "message", "details"}}`. */
export const areaAErrorBody = z.object({
  error: z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});
export type AreaAErrorBody = z.infer<typeof areaAErrorBody>;

/**
 * One field's problem. `message` is English text; `code` (absent for checks only the server can make, such as file references) and `params` let clients
 * show their own wording.
 */
export const fieldError = z.object({
  key: z.string(),
  message: z.string(),
  code: z.enum(fieldProblemCodes).optional(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type FieldError = z.infer<typeof fieldError>;

/** Area B: `{"ok": false, "error": "<text>"}`, with `fieldErrors` on validation failures. */
export const areaBErrorBody = z.object({
  ok: z.literal(false),
  error: z.string(),
  fieldErrors: z.array(fieldError).optional(),
  requestId: z.string().optional(),
});
export type AreaBErrorBody = z.infer<typeof areaBErrorBody>;
