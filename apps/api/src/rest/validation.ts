import type { z } from "zod";
import { fromZodError } from "../core/errors";

/** Parses `value` or throws one invalid_request naming the first offending field (`fromZodError`). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root = "body"): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw fromZodError(result.error, root);
}
