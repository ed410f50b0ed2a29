import type { z } from "zod";
import type { createFormRequestInput } from "@clinsign/contracts";
import { eq, formRequests, messages, templates } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { knownInstitution } from "../branding/branding";
import { afterCommit, inTransaction, type OrgContext } from "../context";
import { templateHeldElsewhere } from "../credentials/template-owners";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError, notFound } from "../errors";
import { assertMayChooseDestinations } from "../forms/destinations";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED } from "../messaging/messaging";
import { formLinkSms, smsLocale } from "../messaging/sms-texts";
import { organizationProfile } from "../organizations/profile";
import { normaliseMobile } from "./phone";

/** How long an SMS form link opens. */
export const FORM_REQUEST_LIFETIME_MS = 7 * 24 * 3600_000;

/** The SMS form page the text links to. */
export const smsFormLink = (publicWebUrl: string, linkToken: string) => `${publicWebUrl}/f/${linkToken}`;

/**
 * Queues the SMS with a request's SMS form link, in the caller's transaction, as the request's
 * current link message. The stored body shows that a link went out, not the link: it opens the
 * patient's form (the full text reaches only the provider, see queueMessage).
 */
export async function queueLinkSms(
  tx: OrgContext,
  request: { id: string; phone: string; smsFrom: string | null; locale: string | null },
  linkToken: string,
): Promise<{ messageId: string; jobId: string }> {
  const org = await organizationProfile(tx);
  const text = (link: string) => formLinkSms(smsLocale(request.locale, org.locale), { organization: org.name, link });
  const { publicWebUrl } = tx.services.config;
  const sms = await queueMessage(tx, {
    channel: "sms",
    recipients: [request.phone],
    sender: request.smsFrom,
    body: text(smsFormLink(publicWebUrl, linkToken)),
    redactedBody: text(smsFormLink(publicWebUrl, REDACTED)),
    purpose: "form_request.link",
  });
  await linkMessageToRequest(tx, sms.messageId, request.id);
  await tx.scope.update(formRequests, { smsMessageId: sms.messageId }, eq(formRequests.id, request.id));
  return sms;
}

/** Files a message under its form request: the request's SMS history in the staff console. */
export async function linkMessageToRequest(tx: OrgContext, messageId: string, formRequestId: string): Promise<void> {
  await tx.scope.update(messages, { formRequestId }, eq(messages.id, messageId));
}

/**
 * F1 (`input` parsed by the door): validates the phone (400), finds the template (403 when it exists only in another organization,
 * 404 when none is named, it does not exist or is not active), stores the request with an
 * unguessable link and queues the SMS in the same transaction. The SMS's first attempt runs
 * right after commit; a provider failure leaves the request in place and the message queued
 * for retries, with its error visible to staff.
 */
export async function createFormRequest(ctx: OrgContext, input: z.output<typeof createFormRequestInput>) {
  const org = await organizationProfile(ctx);
  const phone = normaliseMobile(input.phone, org.phoneCountry);
  if (!phone) {
    throw new AppError(
      "invalid_request",
      "phone: must be a mobile number (e.g. +491701234567, or 0170 1234567 in the organization's country)",
      { field: "phone" },
      [{ key: "phone", message: "must be a mobile number" }],
    );
  }
  const institutionId = input.institutionId === undefined ? null : await knownInstitution(ctx, input.institutionId);
  if (!input.templateIdentifier)
    throw new AppError("not_found", "no form assigned: name a templateIdentifier", { field: "templateIdentifier" });
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, input.templateIdentifier)).limit(1);
  if (!template) {
    // Identifiers are unique per organization only; one that exists elsewhere is someone else's form.
    if (await templateHeldElsewhere(ctx.services, ctx.scope.organizationId, input.templateIdentifier))
      throw new AppError("forbidden", "this template does not belong to the organization", {
        field: "templateIdentifier",
      });
    throw notFound("template", { field: "templateIdentifier" });
  }
  if (template.status !== "active")
    throw new AppError("not_found", "template is not active", { field: "templateIdentifier" });
  await assertMayChooseDestinations(ctx, { emailTo: input.emailTo });

  const linkToken = randomSecret(32);
  await inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(formRequests, {
        templateIdentifier: template.identifier,
        rnummer: input.rnummer,
        phone,
        smsFrom: input.from ?? null,
        emailTo: input.emailTo ?? [],
        emailSubject: input.emailSubject ?? null,
        institutionId,
        // Only a language the caller names presets the form; the SMS texts fall back to the organization's.
        locale: input.locale ?? null,
        linkTokenHash: sha256Hex(linkToken),
        expiresAt: new Date(Date.now() + FORM_REQUEST_LIFETIME_MS),
      })
      .returning({ id: formRequests.id });
    const sms = await queueLinkSms(
      tx,
      { id: row!.id, phone, smsFrom: input.from ?? null, locale: input.locale ?? null },
      linkToken,
    );
    await recordAudit(tx, {
      action: "form_request.created",
      templateIdentifier: template.identifier,
      metadata: { formRequestId: row!.id, rnummer: input.rnummer, phone, messageId: sms.messageId },
    });
    // The SMS's first attempt, once the request and its message are committed.
    await afterCommit(tx, "form request link SMS", () => runJobNow(tx.services, sms.jobId, messageJobHandler));
  });
  return { rnummer: input.rnummer, phone, templateIdentifier: template.identifier };
}
