import type {
  ListPage,
  ListSort,
  WebhookAttemptItem,
  WebhookDeliveryDetail,
  WebhookOverview,
} from "@clinsign/contracts";
import { asc, eq, getTableColumns, gte, lt, webhookAttempts, webhookDeliveries, type SQL } from "@clinsign/db";
import type { OrgContext } from "../context";
import { notFound } from "../errors";
import { page } from "../lists/keyset";

/** The filters of the staff delivery log (contracts: webhookAttemptFilters). */
export interface WebhookAttemptFilter {
  eventType?: string;
  templateIdentifier?: string;
  outcome?: "delivered" | "failed";
  createdFrom?: string;
  createdTo?: string;
}

function conditions(filter: WebhookAttemptFilter): (SQL | undefined)[] {
  return [
    filter.eventType ? eq(webhookAttempts.eventType, filter.eventType) : undefined,
    filter.templateIdentifier ? eq(webhookAttempts.templateIdentifier, filter.templateIdentifier) : undefined,
    filter.outcome ? eq(webhookAttempts.delivered, filter.outcome === "delivered") : undefined,
    filter.createdFrom ? gte(webhookAttempts.createdAt, new Date(filter.createdFrom)) : undefined,
    filter.createdTo ? lt(webhookAttempts.createdAt, new Date(filter.createdTo)) : undefined,
  ];
}

function toItem(row: typeof webhookAttempts.$inferSelect): WebhookAttemptItem {
  return {
    id: row.id,
    deliveryId: row.deliveryId,
    eventType: row.eventType,
    templateIdentifier: row.templateIdentifier,
    webhookUrl: row.webhookUrl,
    attempt: row.attempt,
    delivered: row.delivered,
    statusCode: row.statusCode,
    errorMessage: row.errorMessage,
    durationMs: row.durationMs,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Staff: a page of the delivery log (F12's rows, one per attempt) by event, template, outcome and time (the list contract). */
export async function listWebhookAttemptPage(
  ctx: OrgContext,
  input: WebhookAttemptFilter & { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<WebhookAttemptItem>> {
  const query = ctx.scope
    .query(getTableColumns(webhookAttempts))
    .from(webhookAttempts)
    .where(...conditions(input));
  return page(query, [webhookAttempts.createdAt, webhookAttempts.id], input, toItem);
}

/** Staff: one delivery with the exact body that was signed and sent, and every attempt, first to last. */
export async function getWebhookDelivery(
  ctx: OrgContext,
  input: { deliveryId: string },
): Promise<WebhookDeliveryDetail> {
  const [delivery] = await ctx.scope.select(webhookDeliveries, eq(webhookDeliveries.id, input.deliveryId)).limit(1);
  if (!delivery) throw notFound("webhook delivery", { field: "deliveryId" });
  const attempts = await ctx.scope
    .select(webhookAttempts, eq(webhookAttempts.deliveryId, delivery.id))
    .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.createdAt));
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    templateIdentifier: delivery.templateIdentifier,
    url: delivery.url,
    status: delivery.status,
    attempts: attempts.map(toItem),
    body: delivery.body,
    createdAt: delivery.createdAt.toISOString(),
  };
}

/** How much of the signing secret staff see: enough to compare with a receiver's, too little to sign. */
const SECRET_PREFIX_CHARS = 4;

/**
 * Staff: the default webhook URLs and the signing secret's prefix (`whsec_` plus four characters),
 * for every role; changing them stays with owners and admins (organization.update).
 */
export async function getWebhookOverview(ctx: OrgContext): Promise<WebhookOverview> {
  const org = await ctx.scope.organization();
  const secret = org.webhookSecretEnc ? ctx.services.secrets.open(org.webhookSecretEnc) : null;
  const prefix = secret
    ? secret.slice(0, (secret.startsWith("whsec_") ? "whsec_".length : 0) + SECRET_PREFIX_CHARS)
    : null;
  return { webhookUrls: org.webhookUrls, hasSecret: secret !== null, secretPrefix: prefix };
}
