import { z } from "zod";
import { isoDateTime } from "./common";

/**
 * Data retention per organization (core/retention): how long each kind of record is kept before
 * the retention sweep deletes it, with its stored files. A period is days or years; `null` keeps
 * the records until the clinic sets a period.
 *
 * - `drafts`: unsent form drafts, counted from their last save;
 * - `submissions`: submitted forms and their attachments, from submission;
 * - `signatureRequests`: finished signature requests (completed, declined, expired) with their
 *   sealed PDF, metadata JSON and signature image, from when they finished;
 * - `outbox`: sent or failed SMS and e-mails, from when they were written;
 * - `webhookDeliveries`: finished webhook deliveries and their attempts (the webhook log), from creation;
 * - `sessions`: embed sessions, SMS form links and signing tickets and passes, from their expiry.
 */
export const retentionKinds = [
  "drafts",
  "submissions",
  "signatureRequests",
  "outbox",
  "webhookDeliveries",
  "sessions",
] as const;
export const retentionKind = z.enum(retentionKinds);
export type RetentionKind = z.infer<typeof retentionKind>;

export const retentionUnits = ["days", "years"] as const;
export const RETENTION_MAX = { days: 36500, years: 100 } as const;

export const retentionPeriod = z
  .object({
    amount: z
      .number({ message: "must be a whole number" })
      .int({ message: "must be a whole number" })
      .min(1, { message: "must be at least 1" }),
    unit: z.enum(retentionUnits, { message: "must be days or years" }),
  })
  .strict()
  .refine((p) => p.amount <= RETENTION_MAX[p.unit], {
    message: `must be at most ${RETENTION_MAX.days} days or ${RETENTION_MAX.years} years`,
    path: ["amount"],
  });
export type RetentionPeriod = z.infer<typeof retentionPeriod>;

/** Every kind's period; null keeps the records. */
export const retentionPolicy = z.object({
  drafts: retentionPeriod.nullable(),
  submissions: retentionPeriod.nullable(),
  signatureRequests: retentionPeriod.nullable(),
  outbox: retentionPeriod.nullable(),
  webhookDeliveries: retentionPeriod.nullable(),
  sessions: retentionPeriod.nullable(),
});
export type RetentionPolicy = z.infer<typeof retentionPolicy>;

/** What an organization keeps until it says otherwise: clinical records for good, the rest briefly. */
export const RETENTION_DEFAULTS: RetentionPolicy = {
  drafts: { amount: 30, unit: "days" },
  submissions: null,
  signatureRequests: null,
  outbox: { amount: 90, unit: "days" },
  webhookDeliveries: { amount: 90, unit: "days" },
  sessions: { amount: 90, unit: "days" },
};

/** A change: the kinds named get the period given (null: keep); the others stay as they are. */
export const updateRetentionPolicyInput = retentionPolicy.partial().strict();
export type UpdateRetentionPolicyInput = z.infer<typeof updateRetentionPolicyInput>;

export const retentionKindCounts = z.object(
  Object.fromEntries(retentionKinds.map((k) => [k, z.number().int()])) as Record<RetentionKind, z.ZodNumber>,
);
export type RetentionKindCounts = Record<RetentionKind, number>;

/** The sweep's state: when it runs next, and what its last run did. */
export const retentionRunStatus = z.object({
  nextRunAt: isoDateTime.nullable(),
  running: z.boolean(),
  lastStartedAt: isoDateTime.nullable(),
  lastFinishedAt: isoDateTime.nullable(),
  lastDeleted: retentionKindCounts.nullable(),
  lastError: z.string().nullable(),
});
export type RetentionRunStatus = z.infer<typeof retentionRunStatus>;

/** The settings section: the policy as set (defaults filled in) and which kinds still follow the default. */
export const retentionSettings = z.object({
  policy: retentionPolicy,
  defaults: retentionPolicy,
  status: retentionRunStatus,
});
export type RetentionSettings = z.infer<typeof retentionSettings>;

/** "What the next run will delete": per kind, the cutoff, how many records and files go, how many a hold keeps. */
export const retentionPreviewItem = z.object({
  kind: retentionKind,
  period: retentionPeriod.nullable(),
  /** Records older than this go; null when the kind is kept. */
  cutoff: isoDateTime.nullable(),
  records: z.number().int(),
  /** Records past the cutoff that a legal hold keeps. */
  held: z.number().int(),
});
export const retentionPreview = z.object({ asOf: isoDateTime, kinds: z.array(retentionPreviewItem) });
export type RetentionPreview = z.infer<typeof retentionPreview>;
