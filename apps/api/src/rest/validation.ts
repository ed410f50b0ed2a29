import type { z } from "zod";
import { AppError } from "../core/errors";

/** Parses `value` or throws one invalid_request naming the first offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldErrors = result.error.issues.map((issue) => ({
    key: issue.path.map(String).join(".") || "body",
    message: issue.message,
  }));
  const first = fieldErrors[0]!;
  throw new AppError(
    "invalid_request",
    first.key === "body" ? first.message : `${first.key}: ${first.message}`,
    { field: first.key },
    fieldErrors,
  );
}
