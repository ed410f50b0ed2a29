import { createHmac } from "node:crypto";
import type { WebhookLogEntry } from "@clinsign/contracts";
import { desc, eq, formSessions, gt, sql, webhookAttempts, webhookDeliveries } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, systemContext, type OrgContext, type Services } from "../context";
import { AppError, notFound } from "../errors";
import { defaultWebhookUrls } from "../forms/destinations";
import { runJobNow, type JobHandler } from "../jobs/execute";
import { enqueueJob, type Job } from "../jobs/queue";
import { deliveries } from "../metrics/metrics";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import { webhookPolicy } from "./destinations";

export const WEBHOOK_JOB = "webhook.deliver";

/** Delay before attempt n+1 (index n, 1-based attempts): now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_SCHEDULE_MS.length;
/** The first attempt of F10 and F11 runs inside the request with this timeout. */
export const INLINE_TIMEOUT_MS = 5_000;
const JOB_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Keeps the background runner off a job whose first attempt the request makes itself. */
const INLINE_HOLD_MS = 60_000;

export interface WebhookEventInput {
  event: string;
  templateIdentifier: string | null;
  data: Record<string, unknown>;
  /** The exact body to send instead of the event envelope (a FHIR resource, by the organization's webhook format). */
  body?: string;
  /** Target URLs; by default the session's webhookUrl, else the organization's default URLs. */
  urls?: string[];
  /** The caller makes the first attempt itself (`deliverAfterCommit`) right after the commit. */
  inline?: boolean;
  /** Added to each `webhook.dispatched` audit entry, e.g. `{signatureId}` so a request's timeline finds its deliveries. */
  auditMetadata?: Record<string, unknown>;
}

export interface QueuedDelivery {
  deliveryId: string;
  jobId: string;
}

/** The session config's webhookUrl, else the organization's default URLs; may be empty. */
export async function webhookUrlsFor(ctx: OrgContext): Promise<string[]> {
  if (ctx.formGrant?.config.webhookUrl) return [ctx.formGrant.config.webhookUrl];
  return defaultWebhookUrls(ctx);
}

/**
 * One delivery of one body to one URL, in the caller's transaction: the delivery row, its durable
 * job and the `webhook.dispatched` audit entry. `inline` holds the job back briefly, because the
 * caller makes the first attempt itself right after its commit.
 */
async function queueDelivery(
  tx: OrgContext,
  delivery: { eventType: string; templateIdentifier: string | null; url: string; body: string },
  inline: boolean,
  auditExtra: Record<string, unknown> = {},
): Promise<QueuedDelivery> {
  const [row] = await tx.scope.insert(webhookDeliveries, delivery).returning({ id: webhookDeliveries.id });
  const job = await enqueueJob(tx.scope, {
    organizationId: tx.scope.organizationId,
    kind: WEBHOOK_JOB,
    payload: { deliveryId: row!.id },
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
    runAt: inline ? new Date(Date.now() + INLINE_HOLD_MS) : undefined,
  });
  await tx.scope.update(webhookDeliveries, { jobId: job.id }, eq(webhookDeliveries.id, row!.id));
  await recordAudit(tx, {
    action: "webhook.dispatched",
    templateIdentifier: delivery.templateIdentifier,
    metadata: { event: delivery.eventType, deliveryId: row!.id, url: delivery.url, ...auditExtra },
  });
  // Due now: the background runner takes it once the change is committed, without waiting for its next poll.
  if (!inline) await afterCommit(tx, "jobs.wake", () => tx.services.jobs?.wake());
  return { deliveryId: row!.id, jobId: job.id };
}

/**
 * Queues an event for every target URL, in the caller's transaction: the delivery row (with the
 * exact body that is signed and sent on every attempt), its durable job, and a
 * `webhook.dispatched` audit entry. Area A calls this for `signature.*` events too.
 */
export async function emitWebhookEvent(ctx: OrgContext, input: WebhookEventInput): Promise<QueuedDelivery[]> {
  const urls = input.urls ?? (await webhookUrlsFor(ctx));
  if (urls.length === 0) return [];
  return inTransaction(ctx, async (tx) => {
    const body =
      input.body ??
      JSON.stringify({
        event: input.event,
        createdAt: new Date().toISOString(),
        organizationId: tx.scope.organizationId,
        templateIdentifier: input.templateIdentifier,
        data: input.data,
      });
    const queued: QueuedDelivery[] = [];
    for (const url of urls) {
      queued.push(
        await queueDelivery(
          tx,
          { eventType: input.event, templateIdentifier: input.templateIdentifier, url, body },
          input.inline ?? false,
          input.auditMetadata,
        ),
      );
    }
    return queued;
  });
}

/**
 * The Standard Webhooks key: a `whsec_<base64>` secret (what the service generates) is used as the
 * spec says, base64-decoded; any other secret an operator chose is used as its UTF-8 bytes.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  return encoded ? Buffer.from(encoded, "base64") : Buffer.from(secret, "utf8");
}

/** Standard Webhooks signature: base64 HMAC-SHA256 of `id.timestamp.body`. */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", standardWebhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** `X-Service-Signature`: hex HMAC-SHA256 of the exact raw body. */
export function serviceSignature(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

export interface AttemptResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
}

/** One delivery attempt; always writes one webhook log row (F12). */
export async function attemptDelivery(
  ctx: OrgContext,
  input: { deliveryId: string; attempt: number; timeoutMs: number },
): Promise<AttemptResult> {
  const { services, scope } = ctx;
  const { attempt, timeoutMs } = input;
  const [delivery] = await scope.select(webhookDeliveries, eq(webhookDeliveries.id, input.deliveryId)).limit(1);
  if (!delivery) return { delivered: true, statusCode: null, error: null }; // organization deleted meanwhile: nothing to send
  const { webhookSecretEnc } = await scope.organization();
  const secret = webhookSecretEnc ? services.secrets.open(webhookSecretEnc) : null;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(timestamp),
  };
  if (secret) {
    headers["x-service-signature"] = serviceSignature(secret, delivery.body);
    headers["webhook-signature"] = standardWebhookSignature(secret, delivery.id, timestamp, delivery.body);
  }
  const started = performance.now();
  let result: AttemptResult;
  try {
    const response = await guardedFetch(delivery.url, webhookPolicy(services.config), {
      method: "POST",
      headers,
      body: delivery.body,
      timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
      purpose: "webhook",
    });
    const ok = response.status >= 200 && response.status < 300;
    const redirect = response.status >= 300 && response.status < 400;
    result = {
      delivered: ok,
      statusCode: response.status,
      error: ok ? null : redirect ? `redirects are not followed (HTTP ${response.status})` : `HTTP ${response.status}`,
    };
  } catch (error) {
    const message =
      error instanceof OutboundError
        ? `${error.reason}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    result = { delivered: false, statusCode: null, error: message.slice(0, 1000) };
  }
  const durationMs = Math.round(performance.now() - started);
  const finalFailure = !result.delivered && attempt >= WEBHOOK_MAX_ATTEMPTS;
  deliveries.inc({ channel: "webhook", outcome: result.delivered ? "delivered" : finalFailure ? "failed" : "retry" });
  await scope.transaction(async (tx) => {
    await tx.insert(webhookAttempts, {
      deliveryId: delivery.id,
      eventType: delivery.eventType,
      templateIdentifier: delivery.templateIdentifier,
      webhookUrl: delivery.url,
      attempt,
      delivered: result.delivered,
      statusCode: result.statusCode,
      errorMessage: result.error,
      durationMs,
    });
    await tx.update(
      webhookDeliveries,
      {
        attempts: attempt,
        status: result.delivered ? "delivered" : finalFailure ? "failed" : "pending",
        updatedAt: new Date(),
      },
      eq(webhookDeliveries.id, delivery.id),
    );
  });
  return result;
}

/** The delay before attempt `attempt + 1` on the webhooks' schedule, jittered (±20 %); the FHIR push uses it too. */
export const webhookRetryDelayMs = (attempt: number): number =>
  Math.round((WEBHOOK_SCHEDULE_MS[attempt] ?? WEBHOOK_SCHEDULE_MS.at(-1)!) * (0.8 + Math.random() * 0.4));

function handler(timeoutMs: number): JobHandler {
  return {
    async run(job: Job, services: Services) {
      const deliveryId = String(job.payload.deliveryId);
      const ctx = systemContext(services, job.organizationId!, `job:${job.id}`);
      const result = await attemptDelivery(ctx, { deliveryId, attempt: job.attempts, timeoutMs });
      if (!result.delivered) throw new Error(result.error ?? "not delivered");
    },
    retryDelayMs: webhookRetryDelayMs,
    leaseSeconds: 60,
  };
}

/** The background handler: attempts after the first, from any API process. */
export const webhookJobHandler = handler(JOB_TIMEOUT_MS);

/** Makes the first attempt of freshly committed deliveries now; true when every one was delivered. */
async function deliverNow(services: Services, queued: QueuedDelivery[]): Promise<boolean> {
  if (queued.length === 0) return false;
  const inline = handler(INLINE_TIMEOUT_MS);
  const outcomes = await Promise.all(queued.map((q) => runJobNow(services, q.jobId, inline)));
  return outcomes.every(Boolean);
}

/** What the first attempt of inline deliveries achieved, once it ran after the commit. */
export interface FirstAttempt {
  delivered: boolean;
}

/**
 * Makes the first attempt of deliveries queued `inline` in `ctx`'s transaction once the outermost
 * transaction has committed (now, outside one): the attempt must see the committed rows, and a
 * rollback sends nothing. `delivered` is filled in then: read it after the outermost transaction
 * returned (false before, when nothing was queued, or when an attempt failed; the job retries).
 */
export async function deliverAfterCommit(ctx: OrgContext, queued: QueuedDelivery[]): Promise<FirstAttempt> {
  const outcome: FirstAttempt = { delivered: false };
  await afterCommit(ctx, "webhook.first_attempt", async () => {
    outcome.delivered = await deliverNow(ctx.services, queued);
  });
  return outcome;
}

/** F12: newest attempt first, filtered by event type and template. */
export async function listWebhookLog(
  ctx: OrgContext,
  input: { eventType?: string; templateIdentifier?: string; limit: number },
): Promise<WebhookLogEntry[]> {
  const rows = await ctx.scope
    .select(
      webhookAttempts,
      input.eventType ? eq(webhookAttempts.eventType, input.eventType) : undefined,
      input.templateIdentifier ? eq(webhookAttempts.templateIdentifier, input.templateIdentifier) : undefined,
    )
    .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.attempt))
    .limit(input.limit);
  return rows.map((r) => ({
    id: r.id,
    deliveryId: r.deliveryId,
    eventType: r.eventType,
    templateIdentifier: r.templateIdentifier,
    webhookUrl: r.webhookUrl,
    delivered: r.delivered,
    statusCode: r.statusCode,
    errorMessage: r.errorMessage,
    attempt: r.attempt,
    durationMs: r.durationMs,
    createdAt: r.createdAt.toISOString(),
  }));
}

/**
 * Whether a URL is still a configured destination for a template's events: one of the
 * organization's default URLs now, or the webhookUrl of an embed session for that template that
 * is still valid (neither expired nor revoked). A delivery does not record the session it came
 * from, so any such session counts: whoever created it was allowed to name that URL
 * (forms/destinations.ts) and its answers go there today.
 */
async function isConfiguredWebhookUrl(
  ctx: OrgContext,
  url: string,
  templateIdentifier: string | null,
): Promise<boolean> {
  if ((await defaultWebhookUrls(ctx)).includes(url)) return true;
  if (templateIdentifier === null) return false;
  const [embedSession] = await ctx.scope
    .select(
      formSessions,
      eq(formSessions.templateIdentifier, templateIdentifier),
      gt(formSessions.expiresAt, new Date()),
      sql`${formSessions.config}->>'webhookUrl' = ${url}`,
    )
    .limit(1);
  return embedSession !== undefined;
}

/**
 * Staff: sends a logged event again to its URL, as a new delivery with the same body. The body
 * carries the patient's answers, so it goes only to a URL that is still configured (409
 * `webhook_url_not_configured` otherwise): removing a URL from the settings, or a session
 * expiring or being revoked, ends every delivery to it, resends included.
 */
export async function resendWebhook(
  ctx: OrgContext,
  input: { deliveryId: string },
): Promise<{ deliveryId: string; delivered: boolean }> {
  const [original] = await ctx.scope.select(webhookDeliveries, eq(webhookDeliveries.id, input.deliveryId)).limit(1);
  if (!original) throw notFound("webhook delivery", { field: "deliveryId" });
  if (!(await isConfiguredWebhookUrl(ctx, original.url, original.templateIdentifier))) {
    throw new AppError(
      "conflict",
      "this delivery's URL is no longer configured: it is neither a default webhook URL nor that of a valid session",
      {
        field: "deliveryId",
        reason: "webhook_url_not_configured",
      },
    );
  }
  const { eventType, templateIdentifier, url, body } = original;
  const { queued, first } = await inTransaction(ctx, async (tx) => {
    const queued = await queueDelivery(tx, { eventType, templateIdentifier, url, body }, true, {
      resentFrom: original.id,
    });
    return { queued, first: await deliverAfterCommit(tx, [queued]) };
  });
  return { deliveryId: queued.deliveryId, delivered: first.delivered };
}
