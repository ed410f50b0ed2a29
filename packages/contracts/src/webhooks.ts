import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { createdRange, listInput, listPage } from "./lists";
import { templateIdentifier } from "./templates";

// ---- staff: the webhooks section ---------------------------------------------------------------

/** Filters of the delivery log (F12 rows: one per attempt). */
export const webhookAttemptFilters = {
  eventType: z.string().trim().min(1).max(100).optional(),
  templateIdentifier: templateIdentifier.optional(),
  outcome: z.enum(["delivered", "failed"]).optional(),
  ...createdRange,
};

/** Staff: delivery attempts, newest first (the list contract). */
export const listWebhookAttemptsInput = listInput(webhookAttemptFilters);
export type ListWebhookAttemptsInput = z.input<typeof listWebhookAttemptsInput>;

export const webhookAttemptItem = z.object({
  id: uuid,
  deliveryId: uuid,
  eventType: z.string(),
  templateIdentifier: z.string().nullable(),
  webhookUrl: z.string(),
  attempt: z.number().int(),
  delivered: z.boolean(),
  statusCode: z.number().int().nullable(),
  errorMessage: z.string().nullable(),
  durationMs: z.number().int(),
  createdAt: isoDateTime,
});
export type WebhookAttemptItem = z.infer<typeof webhookAttemptItem>;
export const webhookAttemptPage = listPage(webhookAttemptItem);

/** One delivery: the exact body that was signed and sent on every attempt, and all its attempts. */
export const webhookDeliveryDetail = z.object({
  id: uuid,
  eventType: z.string(),
  templateIdentifier: z.string().nullable(),
  url: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.array(webhookAttemptItem),
  body: z.string(),
  createdAt: isoDateTime,
});
export type WebhookDeliveryDetail = z.infer<typeof webhookDeliveryDetail>;

/** What every staff member may see of the organization's webhook settings: URLs and the secret's prefix. */
export const webhookOverview = z.object({
  webhookUrls: z.array(z.string()),
  hasSecret: z.boolean(),
  /** The first characters of the signing secret, enough to tell which one a receiver holds. */
  secretPrefix: z.string().nullable(),
});
export type WebhookOverview = z.infer<typeof webhookOverview>;
