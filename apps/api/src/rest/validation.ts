import type { z } from "zod";
import { AppError, fromZodError } from "../core/errors";
import { assertStorableInput } from "../core/storable-text";

/** Parses `value` or throws one invalid_request naming the first offending field (`fromZodError`). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root = "body"): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw fromZodError(result.error, root);
}

/** A percent-decoded path segment; a malformed escape or a NUL is the caller's mistake, not a 500. */
export function decodePath(raw: string, field: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new AppError("invalid_request", "the path is not valid percent-encoding", { field: "path" });
  }
  assertStorableInput(decoded, [field]);
  return decoded;
}
