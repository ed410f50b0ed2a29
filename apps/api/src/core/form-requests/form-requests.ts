import { createFormRequestInput, type CreateFormRequestInput, type FormRequestSummary } from "@clinsign/contracts";
import { desc, eq, formRequests, messages, organizations, templates } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound } from "../errors";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED } from "../messaging/messaging";
import { normaliseMobile } from "./phone";

/** How long an SMS portal link opens. */
export const FORM_REQUEST_LIFETIME_MS = 7 * 24 * 3600_000;

/** The portal page the SMS links to. */
export const portalLink = (publicWebUrl: string, linkToken: string) => `${publicWebUrl}/f/${linkToken}`;

/**
 * F1: validates (400), finds the template (403 when it exists only in another organization,
 * 404 when none is named, it does not exist or is not active), stores the request with an
 * unguessable link and queues the SMS in the same transaction. The SMS's first attempt runs
 * right after commit; a provider failure leaves the request in place and the message queued
 * for retries, with its error visible to staff.
 */
export async function createFormRequest(ctx: OrgContext, raw: CreateFormRequestInput) {
  const input = createFormRequestInput.parse(raw);
  const phone = normaliseMobile(input.phone);
  if (!phone) {
    throw new AppError("invalid_request", "phone: must be a mobile number in international format (e.g. +491701234567)", { field: "phone" }, [
      { key: "phone", message: "must be a mobile number in international format" },
    ]);
  }
  if (!input.templateIdentifier) throw new AppError("not_found", "no form assigned: name a templateIdentifier", { field: "templateIdentifier" });
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, input.templateIdentifier)).limit(1);
  if (!template) {
    // Identifiers are unique per organization only; one that exists elsewhere is someone else's form.
    const [foreign] = await ctx.scope.db.select({ id: templates.id }).from(templates).where(eq(templates.identifier, input.templateIdentifier)).limit(1);
    if (foreign) throw new AppError("forbidden", "this template does not belong to the organization", { field: "templateIdentifier" });
    throw notFound("template", { field: "templateIdentifier" });
  }
  if (template.status !== "active") throw new AppError("not_found", "template is not active", { field: "templateIdentifier" });

  const linkToken = randomSecret(32);
  const link = portalLink(ctx.services.config.publicWebUrl, linkToken);
  const { jobId } = await inTransaction(ctx, async (tx) => {
    const [org] = await tx.scope.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, tx.scope.organizationId));
    const [row] = await tx.scope
      .insert(formRequests, {
        templateIdentifier: template.identifier,
        rnummer: input.rnummer,
        phone,
        smsFrom: input.from ?? null,
        emailTo: input.emailTo ?? [],
        emailSubject: input.emailSubject ?? null,
        linkTokenHash: sha256Hex(linkToken),
        expiresAt: new Date(Date.now() + FORM_REQUEST_LIFETIME_MS),
      })
      .returning({ id: formRequests.id });
    const sms = await queueMessage(tx, {
      channel: "sms",
      recipients: [phone],
      sender: input.from ?? null,
      body: `${org?.name ?? "Your clinic"}: please fill in the form "${template.title}": ${link}`,
      // Staff see that the link went out, not the link: it opens the patient's form.
      redactedBody: `${org?.name ?? "Your clinic"}: please fill in the form "${template.title}": ${portalLink(ctx.services.config.publicWebUrl, REDACTED)}`,
      purpose: "form_request.link",
    });
    await tx.scope.update(formRequests, { smsMessageId: sms.messageId }, eq(formRequests.id, row!.id));
    await recordAudit(tx, {
      action: "form_request.created",
      templateIdentifier: template.identifier,
      metadata: { formRequestId: row!.id, rnummer: input.rnummer, phone, messageId: sms.messageId },
    });
    return sms;
  });
  await runJobNow(ctx.services, jobId, messageJobHandler);
  return { rnummer: input.rnummer, phone, templateIdentifier: template.identifier };
}

/** Staff: requests newest first, with the state of their SMS. */
export async function listFormRequests(ctx: OrgContext, input: { limit: number }): Promise<FormRequestSummary[]> {
  const rows = await ctx.scope.select(formRequests).orderBy(desc(formRequests.createdAt)).limit(input.limit);
  const sms = new Map<string, typeof messages.$inferSelect>();
  for (const row of rows) {
    if (!row.smsMessageId) continue;
    const [m] = await ctx.scope.select(messages, eq(messages.id, row.smsMessageId)).limit(1);
    if (m) sms.set(row.id, m);
  }
  return rows.map((r) => ({
    id: r.id,
    templateIdentifier: r.templateIdentifier,
    rnummer: r.rnummer,
    phone: r.phone,
    status: r.status,
    smsStatus: sms.get(r.id)?.status ?? null,
    smsError: sms.get(r.id)?.lastError ?? null,
    submissionId: r.submissionId,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
  }));
}
