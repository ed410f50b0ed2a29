import { z } from "zod";

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

export const fieldError = z.object({ key: z.string(), message: z.string() });
export type FieldError = z.infer<typeof fieldError>;

/** Area B: `{"ok": false, "error": "<text>"}`, with `fieldErrors` on validation failures. */
export const areaBErrorBody = z.object({
  ok: z.literal(false),
  error: z.string(),
  fieldErrors: z.array(fieldError).optional(),
  requestId: z.string().optional(),
});
export type AreaBErrorBody = z.infer<typeof areaBErrorBody>;
