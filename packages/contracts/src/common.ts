import { z } from "zod";

export const uuid = z.uuid({ message: "must be a UUID" });

/**
 * A list limit: a whole number from 1 to `max`, `fallback` when absent. Query strings arrive as
 * text, so digits are accepted as a string too; anything else is a 400, never silently clamped.
 */
export function listLimit(fallback: number, max: number) {
  return z
    .union([z.number(), z.string().regex(/^\d+$/, { message: "must be a whole number" }).transform(Number)])
    .pipe(
      z
        .number()
        .int({ message: "must be a whole number" })
        .min(1, { message: "must be at least 1" })
        .max(max, { message: `must be at most ${max}` }),
    )
    .default(fallback);
}

/** Timestamps leave the service as ISO 8601 strings with milliseconds. */
export const isoDateTime = z.iso.datetime({ offset: true });

export const httpUrl = z
  .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
  .max(2048, { message: "must be at most 2048 characters" });
