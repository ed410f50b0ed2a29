import type { AreaAErrorBody, AreaBErrorBody } from "@clinsign/contracts";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import type { ServerResponse } from "node:http";
import { AppError, errorMapping, fromZodError } from "../core/errors";
import { sendJson } from "../wire/io";

export type Area = "A" | "B";

/** Area A: `{"error": {"code", "message", "details"}}`; the request id rides in details. */
export function areaAError(error: AppError, requestId: string): { status: number; body: AreaAErrorBody } {
  return {
    status: errorMapping[error.code].status,
    body: { error: { code: error.code, message: error.message, details: { ...error.details, requestId } } },
  };
}

/** Area B: `{"ok": false, "error": "<text>"}` plus `fieldErrors` where fields failed. */
export function areaBError(error: AppError, requestId: string): { status: number; body: AreaBErrorBody } {
  const body: AreaBErrorBody = { ok: false, error: error.message, requestId };
  if (error.fieldErrors?.length) body.fieldErrors = error.fieldErrors;
  return { status: errorMapping[error.code].status, body };
}

export function renderError(area: Area, error: AppError, requestId: string) {
  return area === "A" ? areaAError(error, requestId) : areaBError(error, requestId);
}

/** Answers with an AppError in the area's envelope (the listener, before or outside the route table, and the table's doors). */
export function sendError(
  res: ServerResponse,
  area: Area,
  error: AppError,
  requestId: string,
  headers?: Record<string, string>,
): void {
  const { status, body } = renderError(area, error, requestId);
  sendJson(res, status, body, headers);
}

/** The AppError a door renders: a service's own, or a procedure's refused input; else undefined (a 500). */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (error.cause instanceof ZodError) return fromZodError(error.cause);
  }
  return undefined;
}
