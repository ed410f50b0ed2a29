import type { FhirDelivery, ListPage, ListSort } from "@clinsign/contracts";
import { and, eq, fhirDeliveries, getTableColumns, sql, submissions, type FhirDeliverySource } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, systemContext, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import type { JobHandler } from "../jobs/execute";
import { enqueueJob } from "../jobs/queue";
import { deliveries } from "../metrics/metrics";
import { page } from "../lists/keyset";
import type { SignatureEventListener } from "../signatures/events";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import { WEBHOOK_MAX_ATTEMPTS, webhookRetryDelayMs } from "../webhooks/webhooks";
import { webhookPolicy } from "../webhooks/destinations";
import { authorizationOf, FhirAuthError, forgetToken } from "./access-token";
import { buildPushBundle, NotPushable, notPushableSubmission } from "./bundles";
import { outcomeSummary } from "./outcome";
import { findFhirPushTarget, type FhirPushTargetRow } from "./targets";

export const FHIR_PUSH_JOB = "fhir.push";
const MAX_RESPONSE_BYTES = 1024 * 1024;

type DeliveryRow = typeof fhirDeliveries.$inferSelect;

/**
 * Queues the push of a completed signature request or a submission, in the caller's transaction:
 * nothing when the organization has no enabled FHIR server, one delivery per source however often
 * the event is seen. The Bundle is built by the job, after commit, so the patient's answer never
 * waits for it; the job runner is woken once the change has committed.
 */
export async function queueFhirPush(ctx: OrgContext, source: { kind: FhirDeliverySource; id: string }): Promise<void> {
  const target = await findFhirPushTarget(ctx);
  if (!target?.enabled) return;
  if (source.kind === "submission" && (await submissionNotPushable(ctx, source.id))) return;
  const [delivery] = await ctx.scope
    .insert(fhirDeliveries, { sourceKind: source.kind, sourceId: source.id })
    .onConflictDoNothing()
    .returning();
  if (!delivery) return;
  await enqueueDelivery(ctx, delivery.id);
}

/** The signature events' listener (services.ts adds it): a completed request's sealed PDF goes out. */
export const fhirPushOnSignatureEvent: SignatureEventListener = async (tx, event, signatureId) => {
  if (event === "signature.completed") await queueFhirPush(tx, { kind: "signature_request", id: signatureId });
};

/** A submission no patient record could take (no case number, or one nobody verified) is not queued at all. */
async function submissionNotPushable(ctx: OrgContext, submissionId: string): Promise<boolean> {
  const [row] = await ctx.scope
    .query({ rnummer: submissions.rnummer, rnummerPatientReported: submissions.rnummerPatientReported })
    .from(submissions)
    .where(eq(submissions.id, submissionId))
    .limit(1);
  return !row || notPushableSubmission(row) !== null;
}

async function enqueueDelivery(ctx: OrgContext, deliveryId: string): Promise<void> {
  const job = await enqueueJob(ctx.scope, {
    kind: FHIR_PUSH_JOB,
    payload: { deliveryId },
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  });
  await ctx.scope.update(fhirDeliveries, { jobId: job.id }, eq(fhirDeliveries.id, deliveryId));
  await afterCommit(ctx, "jobs.wake", () => ctx.services.jobs?.wake());
}

/** What the log says of an attempt whose process stopped before the server answered. */
const CUT_OFF = "the attempt was cut off before the server answered (the process stopped)";

/** What one attempt came to: delivered, worth retrying, or refused for good (the content or the settings). */
type Attempt = { outcome: "delivered" | "retry" | "refused"; statusCode: number | null; error: string | null };

/**
 * One attempt: the Bundle (built and kept on the first), the credential, a POST of the
 * transaction to the server's base URL through the outbound guard, and the outcome on the row.
 */
export async function attemptFhirDelivery(ctx: OrgContext, deliveryId: string): Promise<Attempt> {
  const [delivery] = await ctx.scope.select(fhirDeliveries, eq(fhirDeliveries.id, deliveryId)).limit(1);
  if (!delivery || delivery.status === "delivered") return { outcome: "delivered", statusCode: null, error: null };
  const target = await findFhirPushTarget(ctx);
  // Counted before it is sent: an attempt cut off by a stopped process stays in the log as such.
  await ctx.scope.update(
    fhirDeliveries,
    {
      attempts: sql`${fhirDeliveries.attempts} + 1`,
      lastAttemptAt: new Date(),
      lastStatusCode: null,
      lastError: CUT_OFF,
    },
    eq(fhirDeliveries.id, delivery.id),
  );
  const attempt = target
    ? await post(ctx, delivery, target)
    : ({ outcome: "refused", statusCode: null, error: "no FHIR server is configured" } as const);
  deliveries.inc({ channel: "fhir", outcome: attempt.outcome === "refused" ? "failed" : attempt.outcome });
  await ctx.scope.update(
    fhirDeliveries,
    {
      status: attempt.outcome === "delivered" ? "delivered" : attempt.outcome === "refused" ? "failed" : "pending",
      lastStatusCode: attempt.statusCode,
      lastError: attempt.error,
      lastAttemptAt: new Date(),
      // Once it arrived, the copy (the sealed PDF inline) is of no further use: the server has it.
      ...(attempt.outcome === "delivered" && { deliveredAt: new Date(), bundle: null }),
    },
    eq(fhirDeliveries.id, delivery.id),
  );
  return attempt;
}

async function post(ctx: OrgContext, delivery: DeliveryRow, target: FhirPushTargetRow): Promise<Attempt> {
  try {
    const bundle = delivery.bundle ?? (await keepBundle(ctx, delivery, target));
    const authorization = await authorizationOf(ctx, target);
    const response = await guardedFetch(`${target.baseUrl}/`, webhookPolicy(ctx.services.config), {
      method: "POST",
      headers: {
        "content-type": "application/fhir+json",
        accept: "application/fhir+json",
        ...(authorization && { authorization }),
      },
      body: bundle,
      timeoutMs: ctx.services.config.fhirPushTimeoutMs,
      purpose: "fhir",
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
    });
    if (response.status >= 200 && response.status < 300)
      return { outcome: "delivered", statusCode: response.status, error: null };
    if (response.status === 401) forgetToken(target);
    return {
      // The server refused the content or the credential: the same Bundle would be refused again.
      outcome: retryable(response.status) ? "retry" : "refused",
      statusCode: response.status,
      error: outcomeSummary(response.status, response.body),
    };
  } catch (error) {
    if (error instanceof NotPushable) return { outcome: "refused", statusCode: null, error: error.message };
    if (error instanceof OutboundError || error instanceof FhirAuthError)
      return { outcome: "retry", statusCode: null, error: error.message.slice(0, 1000) };
    throw error;
  }
}

/** Server trouble, a timeout, a rate limit or an expired token: worth another attempt on the schedule. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429 || status === 401;

/** Builds the delivery's Bundle once and keeps it: every later attempt and a resend send the same bytes. */
async function keepBundle(ctx: OrgContext, delivery: DeliveryRow, target: FhirPushTargetRow): Promise<string> {
  const bundle = JSON.stringify(
    await buildPushBundle(ctx, { kind: delivery.sourceKind, id: delivery.sourceId }, target),
  );
  await ctx.scope.update(fhirDeliveries, { bundle }, eq(fhirDeliveries.id, delivery.id));
  return bundle;
}

/** `fhir.push`: one attempt per run, retried on the webhooks' schedule; a refusal ends it. */
export const fhirPushJobHandler: JobHandler = {
  async run(job, services) {
    const ctx = systemContext(services, job.organizationId!, `job:${job.id}`);
    const attempt = await attemptFhirDelivery(ctx, String(job.payload.deliveryId));
    if (attempt.outcome === "retry") throw new Error(attempt.error ?? "not delivered");
  },
  retryDelayMs: webhookRetryDelayMs,
  // An attempt waits at most for the token endpoint and for the server, each within the timeout.
  leaseSeconds: (services) => (2 * services.config.fhirPushTimeoutMs) / 1000 + 10,
  async gaveUp(job, services) {
    const ctx = systemContext(services, job.organizationId!, `job:${job.id}`);
    await ctx.scope.update(
      fhirDeliveries,
      { status: "failed" },
      and(eq(fhirDeliveries.id, String(job.payload.deliveryId)), eq(fhirDeliveries.status, "pending")),
    );
  },
};

/** Staff: a page of the delivery log, newest first (the list contract). */
export function listFhirDeliveries(
  ctx: OrgContext,
  input: { status?: DeliveryRow["status"]; cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<FhirDelivery>> {
  const query = ctx.scope
    .query(getTableColumns(fhirDeliveries))
    .from(fhirDeliveries)
    .where(input.status ? eq(fhirDeliveries.status, input.status) : undefined);
  return page(query, [fhirDeliveries.createdAt, fhirDeliveries.id], input, toDelivery);
}

/**
 * Staff: sends a delivery again, with the Bundle it was built with (its conditional creates keep
 * the server from storing anything twice). A delivered one is refused: it is there already.
 */
export async function resendFhirDelivery(ctx: OrgContext, input: { id: string }): Promise<FhirDelivery> {
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope.select(fhirDeliveries, eq(fhirDeliveries.id, input.id)).limit(1).for("update");
    if (!row) throw notFound("FHIR delivery");
    if (row.status === "delivered") throw new AppError("conflict", "this delivery has arrived already");
    const [updated] = await tx.scope
      .update(fhirDeliveries, { status: "pending", lastError: null }, eq(fhirDeliveries.id, row.id))
      .returning();
    await enqueueDelivery(tx, row.id);
    await recordAudit(tx, { action: "fhir.resent", metadata: { deliveryId: row.id, sourceKind: row.sourceKind } });
    return toDelivery(updated!);
  });
}

function toDelivery(row: DeliveryRow): FhirDelivery {
  return {
    id: row.id,
    sourceKind: row.sourceKind,
    sourceId: row.sourceId,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
