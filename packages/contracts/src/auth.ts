import { z } from "zod";

/**
 * Staff roles, strongest first. What each may call is the one table in `permissions.ts`: owners
 * and admins run the organization (tokens, settings, users), staff do the daily work, viewers
 * only read (lists, details, downloads).
 */
export const roles = ["owner", "admin", "staff", "viewer"] as const;
export const role = z.enum(roles);
export type Role = z.infer<typeof role>;

export const loginInput = z.object({
  email: z.string().trim().toLowerCase().max(320).pipe(z.email({ message: "enter a valid e-mail address" })),
  password: z.string().min(1, { message: "enter your password" }).max(1024),
});

export const me = z.object({
  user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }),
  organization: z.object({ id: z.uuid(), name: z.string() }),
  role,
  /** True while completion seals with a generated development certificate. */
  devCertificate: z.boolean(),
  /**
   * The PAdES level new seals aim for: `B-B` without a time-stamping authority (TSA_URL unset:
   * the signing time is only the service's clock), else `B-LTA` (docs/signatures.md).
   */
  sealLevel: z.enum(["B-B", "B-LTA"]),
});
export type Me = z.infer<typeof me>;
