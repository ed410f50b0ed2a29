import type { FormRequestListItem, FormRequestState, ListPage, ListSort, MessageSummary } from "@clinsign/contracts";
import { asc, eq, formRequests, getTableColumns, gte, lt, messages, ne, sql, templates, type SQL } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound } from "../errors";
import { runJobNow } from "../jobs/execute";
import { page } from "../lists/keyset";
import { messageJobHandler, toSummary } from "../messaging/messaging";
import { FORM_REQUEST_LIFETIME_MS, queueLinkSms } from "./form-requests";

/** The filters of the staff list (contracts: formRequestFilters). */
export interface FormRequestFilter {
  state?: FormRequestState;
  templateIdentifier?: string;
  rnummer?: string;
  createdFrom?: string;
  createdTo?: string;
}

/**
 * What staff see of a request (contracts: formRequestStates), in SQL so the list can filter by
 * it: the recipient's progress first, then the link's lifetime, then the state of its link SMS
 * (the request's current `sms_message_id`, joined as `messages`).
 */
function stateOf(now: Date): SQL<FormRequestState> {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql<FormRequestState>`case
    when ${formRequests.status} in ('submitted', 'cancelled') then ${formRequests.status}
    when ${formRequests.expiresAt} <= ${at} then 'expired'
    when ${formRequests.status} in ('locked', 'verified', 'opened') then ${formRequests.status}
    when ${messages.status} = 'failed' then 'sms_failed'
    when ${messages.status} = 'queued' and ${messages.attempts} > 0 then 'sms_retrying'
    when ${messages.status} = 'queued' then 'sending'
    when ${messages.provider} = 'outbox' then 'in_outbox'
    else 'sent' end`;
}

function conditions(filter: FormRequestFilter, state: SQL<FormRequestState>): (SQL | undefined)[] {
  return [
    filter.state ? sql`(${state}) = ${filter.state}` : undefined,
    filter.templateIdentifier ? eq(formRequests.templateIdentifier, filter.templateIdentifier) : undefined,
    filter.rnummer ? eq(formRequests.rnummer, filter.rnummer) : undefined,
    filter.createdFrom ? gte(formRequests.createdAt, new Date(filter.createdFrom)) : undefined,
    filter.createdTo ? lt(formRequests.createdAt, new Date(filter.createdTo)) : undefined,
  ];
}

/** Staff: a page of SMS form requests with their state, by state, template, rnummer and time (the list contract). */
export async function listFormRequestPage(
  ctx: OrgContext,
  input: FormRequestFilter & { cursor?: string; limit: number; sort: ListSort },
): Promise<ListPage<FormRequestListItem>> {
  const state = stateOf(new Date());
  const query = ctx.scope
    .query({
      ...getTableColumns(formRequests),
      state,
      templateTitle: templates.title,
      smsAttempts: messages.attempts,
      smsError: messages.lastError,
    })
    .from(formRequests)
    .leftJoin(messages, eq(messages.id, formRequests.smsMessageId))
    .leftJoin(templates, eq(templates.identifier, formRequests.templateIdentifier))
    .where(...conditions(input, state));
  return page(query, [formRequests.createdAt, formRequests.id], input, (row): FormRequestListItem => ({
    id: row.id,
    templateIdentifier: row.templateIdentifier,
    templateTitle: row.templateTitle,
    rnummer: row.rnummer,
    phone: row.phone,
    smsFrom: row.smsFrom,
    emailTo: row.emailTo,
    state: row.state,
    smsAttempts: row.smsAttempts ?? 0,
    smsError: row.smsError,
    submissionId: row.submissionId,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  }));
}

async function findRequest(ctx: OrgContext, id: string, lock = false): Promise<typeof formRequests.$inferSelect> {
  const query = ctx.scope.select(formRequests, eq(formRequests.id, id)).limit(1);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound("form request", { field: "id" });
  return row;
}

/** Staff: the SMS of one request (its links, resent links and OTP codes), oldest first, bodies as stored. */
export async function listFormRequestMessages(ctx: OrgContext, input: { id: string }): Promise<MessageSummary[]> {
  const request = await findRequest(ctx, input.id);
  const rows = await ctx.scope
    .select(messages, eq(messages.formRequestId, request.id))
    .orderBy(asc(messages.createdAt), asc(messages.id));
  return rows.map(toSummary);
}

/**
 * Staff: sends the request's link again. The link token is stored only as a hash, so this issues
 * a new one: the old link stops opening, the new one opens for a fresh lifetime, a lock after
 * wrong entries and any access of the old link end. Submitted and cancelled requests refuse (409).
 */
export async function resendFormRequestLink(ctx: OrgContext, input: { id: string }) {
  const linkToken = randomSecret(32);
  const queued = await inTransaction(ctx, async (tx) => {
    const row = await findRequest(tx, input.id, true);
    if (row.status === "submitted") throw new AppError("conflict", "this form was already submitted");
    if (row.status === "cancelled") throw new AppError("conflict", "this request was cancelled; send a new one");
    const [template] = await tx.scope.select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
    if (!template || template.status !== "active")
      throw new AppError("conflict", "the form of this request is no longer active", { field: "templateIdentifier" });
    const expiresAt = new Date(Date.now() + FORM_REQUEST_LIFETIME_MS);
    await tx.scope.update(
      formRequests,
      {
        linkTokenHash: sha256Hex(linkToken),
        status: "sent",
        failedChecks: 0,
        identityVerifiedAt: null,
        accessTokenHash: null,
        accessExpiresAt: null,
        expiresAt,
        updatedAt: new Date(),
      },
      eq(formRequests.id, row.id),
    );
    const sms = await queueLinkSms(tx, row, linkToken);
    await recordAudit(tx, {
      action: "form_request.link_resent",
      templateIdentifier: row.templateIdentifier,
      metadata: { formRequestId: row.id, messageId: sms.messageId, previousStatus: row.status },
    });
    // The SMS's first attempt, once the new link is committed; outside a caller's transaction it has
    // run when this returns, so the answer shows how it went.
    await afterCommit(tx, "form request link SMS", () => runJobNow(tx.services, sms.jobId, messageJobHandler));
    return { ...sms, expiresAt };
  });
  const [sms] = await ctx.scope.select(messages, eq(messages.id, queued.messageId)).limit(1);
  return {
    id: input.id,
    messageId: queued.messageId,
    smsStatus: sms?.status ?? "queued",
    expiresAt: queued.expiresAt.toISOString(),
  };
}

/**
 * Staff: ends a request now. Its link no longer opens (the SMS form says it expired) and an access
 * already granted ends with it. A submitted request cannot be cancelled (409); cancelling twice is fine.
 */
export async function cancelFormRequest(
  ctx: OrgContext,
  input: { id: string },
): Promise<{ id: string; status: "cancelled" }> {
  await inTransaction(ctx, async (tx) => {
    const row = await findRequest(tx, input.id, true);
    if (row.status === "cancelled") return;
    if (row.status === "submitted") throw new AppError("conflict", "this form was already submitted");
    const now = new Date();
    await tx.scope.update(
      formRequests,
      { status: "cancelled", expiresAt: now, accessTokenHash: null, accessExpiresAt: null, updatedAt: now },
      eq(formRequests.id, row.id),
      ne(formRequests.status, "submitted"),
    );
    await recordAudit(tx, {
      action: "form_request.cancelled",
      templateIdentifier: row.templateIdentifier,
      metadata: { formRequestId: row.id, previousStatus: row.status },
    });
  });
  return { id: input.id, status: "cancelled" };
}
