import { z } from "zod";
import { isoDateTime } from "./common";

export const createTokenInput = z.object({
  name: z.string().trim().min(1, { message: "is required" }).max(100, { message: "must be at most 100 characters" }),
});

export const apiTokenSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  createdAt: isoDateTime,
  lastUsedAt: isoDateTime.nullable(),
  revokedAt: isoDateTime.nullable(),
});
export type ApiTokenSummary = z.infer<typeof apiTokenSummary>;

/** The whole token appears here once, at creation, and never again. */
export const createdToken = z.object({ id: z.uuid(), token: z.string(), summary: apiTokenSummary });

export const revokeTokenInput = z.object({ id: z.uuid({ message: "must be a UUID" }) });
