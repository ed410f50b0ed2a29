import type { FormValues, PatientLanguage, Template } from "@clinsign/contracts";
import { eq, formRequests, templates } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding, getDefaultBranding } from "../branding/branding";
import { inTransaction, smsFormDraftKey, type FormGrant, type OrgContext } from "../context";
import { assertSmsRequestUsable, type SmsFormRequestRow } from "../credentials/sms-links";
import { randomSecret, safeEqual, sha256Hex } from "../crypto";
import { getDraft, saveDraft } from "../drafts/drafts";
import { AppError } from "../errors";
import { organizationProfile } from "../organizations/profile";
import { submitForm } from "../submissions/submissions";
import { toTemplate } from "../templates/templates";
import { normaliseEntered, phoneCountryOf } from "./phone";
import { assertLinkOpen, holdsAccess, issueAccess, lockedRow, MAX_IDENTITY_TRIES } from "./sms-form-access";
import { sendOtpFor } from "./sms-otp";

/**
 * The SMS form: the pages a recipient of an SMS form request (F1) reaches from the link in the
 * text. Before identification the caller holds only the link (`smsLinkContext` of
 * core/credentials/sms-links.ts, built by the link procedures in trpc.ts); identification (rnummer and phone, then the OTP when two-factor is
 * on) grants an access cookie, from which `smsRecipientProcedure` builds the recipient's context
 * (`contextFor`, principal `sms_recipient`). Every read and write after the link's lookup goes
 * through that organization's OrgScope.
 */

async function otpEnabled(ctx: OrgContext): Promise<boolean> {
  return (await ctx.scope.organization()).otpEnabled;
}

/**
 * A case number as people type it: surrounding spaces and letter case do not matter ("r-12345 "
 * is "R-12345"), so a wrong case never costs one of the five tries.
 */
export function normaliseCaseNumber(value: string): string {
  return value.normalize("NFKC").trim().toUpperCase();
}

/** The branding the request's pages show: its institution's, else the organization's default. */
async function requestBranding(ctx: OrgContext, row: SmsFormRequestRow) {
  return row.institutionId ? getBranding(ctx, row.institutionId) : getDefaultBranding(ctx);
}

/**
 * Step 1: what the SMS form's page shows before identification (no personal data). `ctx` is the
 * link holder's (`smsLinkContext`); `accessToken` is the browser's access cookie, if any.
 */
export async function openSmsForm(ctx: OrgContext, input: { link: SmsFormRequestRow; accessToken?: string }) {
  const row = input.link;
  const org = await organizationProfile(ctx);
  const branding = await requestBranding(ctx, row);
  // Whoever holds the link may learn that it expired or staff cancelled it (every other step just
  // refuses it), and who sent it: the clinic to ask for a new one.
  if ((row.expiresAt.getTime() < Date.now() || row.status === "cancelled") && row.status !== "submitted") {
    return {
      status: "expired" as const,
      branding,
      templateTitle: null,
      organizationName: org.name,
      phoneCountry: phoneCountryOf(org.phoneCountry),
      otpRequired: false,
      hasAccess: false,
      expiresAt: row.expiresAt.toISOString(),
      language: row.locale,
    };
  }
  if (row.status === "sent") await markOpened(ctx, row);
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
  return {
    branding,
    status: row.status,
    templateTitle: template?.title ?? null,
    /** Who is asking (the page's header), and whom a locked-out recipient should contact. */
    organizationName: org.name,
    /** The country whose national numbers ("0170 …") the phone fields accept. */
    phoneCountry: phoneCountryOf(org.phoneCountry),
    otpRequired: await otpEnabled(ctx),
    /** The recipient already identified in this browser (a reload): the form opens directly. */
    hasAccess: input.accessToken !== undefined && holdsAccess(row, input.accessToken),
    expiresAt: row.expiresAt.toISOString(),
    /** The language the request was sent in: the form opens in it (the patient may switch). */
    language: row.locale,
  };
}

/** The first time the link opens, staff see the request as opened (once: later opens change nothing). */
async function markOpened(ctx: OrgContext, row: SmsFormRequestRow): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [opened] = await tx.scope
      .update(
        formRequests,
        { status: "opened", updatedAt: new Date() },
        eq(formRequests.id, row.id),
        eq(formRequests.status, "sent"),
      )
      .returning({ id: formRequests.id });
    if (opened)
      await recordAudit(tx, {
        action: "form_request.opened",
        templateIdentifier: row.templateIdentifier,
        metadata: { formRequestId: row.id },
      });
  });
}

/**
 * Step 2: the recipient enters rnummer and phone. Both are compared in constant time; the fifth
 * wrong entry locks the request. With two-factor on, a match sends an OTP instead of access.
 */
export async function verifyIdentity(
  ctx: OrgContext,
  input: { link: SmsFormRequestRow; rnummer: string; phone: string },
) {
  const row = input.link;
  assertLinkOpen(row);
  const { phoneCountry } = await organizationProfile(ctx);
  const entered = normaliseEntered(input.phone, phoneCountry) ?? input.phone.trim();
  // Checked and counted under the row's lock, on the row as it is now: parallel guesses cannot
  // all pass a check made on an earlier read, so at most 5 are ever compared, and a correct
  // entry cannot clear a lock that a parallel wrong one set.
  const identityToken = randomSecret(32);
  const outcome = await inTransaction(ctx, async (tx) => {
    const current = (await lockedRow(tx, row.id)) ?? row;
    assertSmsRequestUsable(current);
    const rnummerOk = safeEqual(normaliseCaseNumber(input.rnummer), normaliseCaseNumber(current.rnummer));
    const phoneOk = safeEqual(entered, current.phone);
    if (rnummerOk && phoneOk) {
      await tx.scope.update(
        formRequests,
        {
          identityVerifiedAt: new Date(),
          identityTokenHash: sha256Hex(identityToken),
          failedChecks: 0,
          updatedAt: new Date(),
        },
        eq(formRequests.id, row.id),
      );
      return { matched: true as const };
    }
    const failedChecks = current.failedChecks + 1;
    await tx.scope.update(
      formRequests,
      { failedChecks, ...(failedChecks >= MAX_IDENTITY_TRIES && { status: "locked" as const }), updatedAt: new Date() },
      eq(formRequests.id, row.id),
    );
    const left = Math.max(0, MAX_IDENTITY_TRIES - failedChecks);
    await recordAudit(tx, {
      action: "form_request.identity_failed",
      templateIdentifier: row.templateIdentifier,
      metadata: { formRequestId: row.id, attemptsLeft: left },
    });
    return { matched: false as const, left };
  });
  if (!outcome.matched) {
    if (outcome.left === 0)
      throw new AppError("forbidden", "this link is locked after too many wrong entries; ask the clinic for a new one");
    throw new AppError("unauthorized", "case number and phone number do not match", { attemptsLeft: outcome.left });
  }
  if (await otpEnabled(ctx)) {
    await sendOtpFor(ctx, row);
    return { otpRequired: true as const, accessToken: null, expiresAt: null, identityToken };
  }
  return { otpRequired: false as const, identityToken: null, ...(await issueAccess(ctx, row)) };
}

/**
 * The request whose form the recipient's access grants (`smsRecipientProcedure` builds the
 * context); 401 for any other caller. Only an SMS recipient's grant pins the request's own,
 * reserved draft key.
 */
function smsGrant(ctx: OrgContext): FormGrant {
  if (!ctx.formGrant || ctx.formGrant.config.draftKey !== smsFormDraftKey(ctx.formGrant.id))
    throw new AppError("unauthorized", "please identify again");
  return ctx.formGrant;
}

/** The request's form, while its template is active. */
export async function smsFormTemplate(ctx: OrgContext): Promise<Template> {
  const grant = smsGrant(ctx);
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, grant.templateIdentifier)).limit(1);
  if (!template || template.status !== "active") throw new AppError("not_found", "this form is no longer available");
  return toTemplate(template);
}

/** The recipient's answers so far, in the request's own draft (F7). */
export async function saveSmsFormDraft(ctx: OrgContext, input: { values: FormValues; language?: PatientLanguage }) {
  const grant = smsGrant(ctx);
  return saveDraft(ctx, { draftKey: smsFormDraftKey(grant.id), values: input.values, language: input.language });
}

/** The request's draft (F8), or null. */
export async function loadSmsFormDraft(ctx: OrgContext) {
  const grant = smsGrant(ctx);
  return getDraft(ctx, { draftKey: smsFormDraftKey(grant.id) });
}

/**
 * Submits the request's form through the F10 pipeline (actor: the SMS recipient), in one
 * transaction with the request's claim and its link to the submission: a failure anywhere (the
 * answers do not validate, the store fails) rolls all of it back and the recipient may correct
 * and submit again; two tabs cannot both submit (the claim waits for the other's row lock). The
 * webhook's first attempt and the result e-mail's wake-up run after the commit.
 */
export async function submitSmsForm(ctx: OrgContext, input: { values: FormValues; language?: PatientLanguage }) {
  const grant = smsGrant(ctx);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .update(
        formRequests,
        { status: "submitted", accessTokenHash: null, accessExpiresAt: null, updatedAt: new Date() },
        eq(formRequests.id, grant.id),
        eq(formRequests.status, "verified"),
      )
      .returning();
    if (!row) throw new AppError("conflict", "this form was already submitted");
    const result = await submitForm(
      tx,
      { templateIdentifier: row.templateIdentifier, values: input.values, language: input.language },
      {
        language: row.locale,
        formRequestId: row.id,
        draftKey: smsFormDraftKey(row.id),
        rnummer: row.rnummer,
        phone: row.phone,
        emailTo: row.emailTo,
        emailSubject: row.emailSubject,
      },
    );
    // The submission names its request; the request names the submission that answered it.
    await tx.scope.update(formRequests, { submissionId: result.submissionId }, eq(formRequests.id, row.id));
    return { ok: true as const, submissionId: result.submissionId, rnummer: row.rnummer };
  });
}
