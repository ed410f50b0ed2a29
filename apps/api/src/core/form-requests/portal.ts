import { createHmac, randomInt } from "node:crypto";
import type { FormValues, Template } from "@clinsign/contracts";
import {
  and,
  desc,
  eq,
  formRequests,
  gt,
  isNull,
  notInArray,
  organizations,
  OrgScope,
  otpChallenges,
  submissions,
  templates,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding, getDefaultBranding } from "../branding/branding";
import { inTransaction, type OrgContext, type RequestMeta, type Services } from "../context";
import { randomSecret, safeEqual, sha256Hex } from "../crypto";
import { getDraft, saveDraft } from "../drafts/drafts";
import { AppError } from "../errors";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED } from "../messaging/messaging";
import { otpSms } from "../messaging/sms-texts";
import { organizationProfile } from "../organizations/profile";
import { consumeRateLimit } from "../rate-limit";
import { submitForm } from "../submissions/submissions";
import { toTemplate } from "../templates/templates";
import { linkMessageToRequest } from "./form-requests";
import { normaliseEntered, phoneCountryOf } from "./phone";

/**
 * The recipient's access after identification: an HTTP-only, SameSite=Strict cookie scoped to
 * the portal's pages (`/f/`), never a value the page's script can read or a URL carries.
 */
export const PORTAL_ACCESS_COOKIE = "cs_form_access";
/**
 * The browser that passed identification (rnummer and phone) while two-factor is on: an HTTP-only
 * cookie like the access one; only that browser may ask for a code or enter one, so whoever else
 * holds the link cannot burn the recipient's OTP tries.
 */
export const PORTAL_IDENTITY_COOKIE = "cs_form_identified";

export const MAX_IDENTITY_TRIES = 5;
export const MAX_OTP_TRIES = 5;
export const OTP_LIFETIME_MS = 10 * 60_000;
export const OTP_RESEND_AFTER_MS = 30_000;
export const OTP_SENDS_PER_PHONE_HOUR = 5;
/** After rnummer and phone matched, the OTP step must follow within this time. */
export const IDENTITY_WINDOW_MS = 30 * 60_000;
/**
 * Calls one recipient's access may make per minute (form, drafts, uploads, submit), as an embed
 * session may (FORM_SESSION_CALLS_PER_MINUTE): autosave every 1.5 s stays far below it.
 */
export const PORTAL_ACCESS_CALLS_PER_MINUTE = 120;
const ACCESS_LIFETIME_MS = 2 * 3600_000;

type RequestRow = typeof formRequests.$inferSelect;

const gone = () => new AppError("not_found", "this link is unknown or has expired");

async function byLink(services: Services, linkToken: string): Promise<RequestRow> {
  const [row] = await services.db
    .select()
    .from(formRequests)
    .where(eq(formRequests.linkTokenHash, sha256Hex(linkToken)))
    .limit(1);
  if (!row || row.expiresAt.getTime() < Date.now()) throw gone();
  return row;
}

function portalContext(services: Services, row: RequestRow, request: RequestMeta): OrgContext {
  return {
    services,
    scope: new OrgScope(services.db, row.organizationId),
    actor: { type: "sms_recipient", id: row.id },
    request,
  };
}

async function otpEnabled(services: Services, organizationId: string): Promise<boolean> {
  const [org] = await services.db
    .select({ otp: organizations.otpEnabled })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return org?.otp ?? false;
}

function usable(row: RequestRow) {
  if (row.status === "cancelled") throw gone();
  if (row.status === "locked")
    throw new AppError("forbidden", "this link is locked after too many wrong entries; ask the clinic for a new one");
  if (row.status === "submitted") throw new AppError("conflict", "this form was already submitted");
}

/**
 * A case number as people type it: surrounding spaces and letter case do not matter ("r-12345 "
 * is "R-12345"), so a wrong case never costs one of the five tries.
 */
export function normaliseCaseNumber(value: string): string {
  return value.normalize("NFKC").trim().toUpperCase();
}

/** The branding the request's pages show: its institution's, else the organization's default. */
async function requestBranding(ctx: OrgContext, row: RequestRow) {
  return row.institutionId ? getBranding(ctx, row.institutionId) : getDefaultBranding(ctx);
}

/** Step 1: what the portal page shows before identification (no personal data). */
export async function openFormRequest(services: Services, input: { linkToken: string; accessToken?: string }) {
  const [row] = await services.db
    .select()
    .from(formRequests)
    .where(eq(formRequests.linkTokenHash, sha256Hex(input.linkToken)))
    .limit(1);
  if (!row) throw gone();
  const ctx = portalContext(services, row, { requestId: "", ip: null, userAgent: null });
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
    };
  }
  if (row.status === "sent") await markOpened(services, row);
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
  return {
    branding,
    status: row.status,
    templateTitle: template?.title ?? null,
    /** Who is asking (the page's header), and whom a locked-out recipient should contact. */
    organizationName: org.name,
    /** The country whose national numbers ("0170 …") the phone fields accept. */
    phoneCountry: phoneCountryOf(org.phoneCountry),
    otpRequired: await otpEnabled(services, row.organizationId),
    /** The recipient already identified in this browser (a reload): the form opens directly. */
    hasAccess: input.accessToken !== undefined && holdsAccess(row, input.accessToken),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** The first time the link opens, staff see the request as opened (once: later opens change nothing). */
async function markOpened(services: Services, row: RequestRow): Promise<void> {
  const ctx = portalContext(services, row, { requestId: "", ip: null, userAgent: null });
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

function holdsAccess(row: RequestRow, accessToken: string): boolean {
  return (
    row.status === "verified" &&
    row.accessTokenHash !== null &&
    row.accessExpiresAt !== null &&
    row.accessExpiresAt.getTime() > Date.now() &&
    safeEqual(sha256Hex(accessToken), row.accessTokenHash)
  );
}

/** Access after identification (and OTP); never for a request a parallel call locked or submitted meanwhile. */
async function issueAccess(ctx: OrgContext, row: RequestRow): Promise<{ accessToken: string; expiresAt: string }> {
  const accessToken = randomSecret(32);
  const expiresAt = new Date(Date.now() + ACCESS_LIFETIME_MS);
  const [granted] = await ctx.scope
    .update(
      formRequests,
      {
        accessTokenHash: sha256Hex(accessToken),
        accessExpiresAt: expiresAt,
        status: "verified",
        identityTokenHash: null,
        updatedAt: new Date(),
      },
      eq(formRequests.id, row.id),
      notInArray(formRequests.status, ["locked", "submitted", "cancelled"]),
    )
    .returning({ id: formRequests.id });
  if (!granted) {
    const [current] = await ctx.scope.select(formRequests, eq(formRequests.id, row.id)).limit(1);
    if (current) usable(current);
    throw gone();
  }
  await recordAudit(ctx, {
    action: "form_request.verified",
    templateIdentifier: row.templateIdentifier,
    metadata: { formRequestId: row.id },
  });
  return { accessToken, expiresAt: expiresAt.toISOString() };
}

/** The request row, locked until the transaction ends: tries on one link are counted one after another. */
async function lockedRow(ctx: OrgContext, id: string): Promise<RequestRow | undefined> {
  const [row] = await ctx.scope.select(formRequests, eq(formRequests.id, id)).for("update");
  return row;
}

/**
 * Step 2: the recipient enters rnummer and phone. Both are compared in constant time; the fifth
 * wrong entry locks the request. With two-factor on, a match sends an OTP instead of access.
 */
export async function verifyIdentity(
  services: Services,
  request: RequestMeta,
  input: { linkToken: string; rnummer: string; phone: string },
) {
  await consumeRateLimit(services.db, {
    key: `portal-verify:ip:${request.ip ?? "unknown"}`,
    limit: 30,
    windowSeconds: 600,
  });
  const row = await byLink(services, input.linkToken);
  usable(row);
  const ctx = portalContext(services, row, request);
  const { phoneCountry } = await organizationProfile(ctx);
  const entered = normaliseEntered(input.phone, phoneCountry) ?? input.phone.trim();
  // Checked and counted under the row's lock, on the row as it is now: parallel guesses cannot
  // all pass a check made on an earlier read, so at most 5 are ever compared, and a correct
  // entry cannot clear a lock that a parallel wrong one set.
  const identityToken = randomSecret(32);
  const outcome = await inTransaction(ctx, async (tx) => {
    const current = (await lockedRow(tx, row.id)) ?? row;
    usable(current);
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
  if (await otpEnabled(services, row.organizationId)) {
    await sendOtpFor(ctx, row);
    return { otpRequired: true as const, accessToken: null, expiresAt: null, identityToken };
  }
  return { otpRequired: false as const, identityToken: null, ...(await issueAccess(ctx, row)) };
}

function otpHash(services: Services, challengeOwner: string, code: string): string {
  return createHmac("sha256", services.secrets.deriveKey("otp")).update(`${challengeOwner}:${code}`).digest("hex");
}

async function sendOtpFor(ctx: OrgContext, row: RequestRow): Promise<{ sent: true; resendAfterSeconds: number }> {
  const { services } = ctx;
  const [last] = await ctx.scope
    .select(otpChallenges, eq(otpChallenges.formRequestId, row.id))
    .orderBy(desc(otpChallenges.createdAt))
    .limit(1);
  if (last && Date.now() - last.createdAt.getTime() < OTP_RESEND_AFTER_MS) {
    const wait = Math.ceil((OTP_RESEND_AFTER_MS - (Date.now() - last.createdAt.getTime())) / 1000);
    throw new AppError("rate_limited", `a new code can be sent in ${wait} s`, { retryAfterSeconds: wait });
  }
  await consumeRateLimit(services.db, {
    key: `otp-sms:${row.phone}`,
    limit: OTP_SENDS_PER_PHONE_HOUR,
    windowSeconds: 3600,
  });
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const org = await organizationProfile(ctx);
  const text = (shown: string) =>
    otpSms(row.locale ?? org.locale, { organization: org.name, code: shown, minutes: OTP_LIFETIME_MS / 60_000 });
  const { jobId } = await ctx.scope.transaction(async (scope) => {
    const tx = { ...ctx, scope };
    await scope.update(
      otpChallenges,
      { endedAt: new Date() },
      eq(otpChallenges.formRequestId, row.id),
      isNull(otpChallenges.endedAt),
    );
    await scope.insert(otpChallenges, {
      formRequestId: row.id,
      codeHash: otpHash(services, row.id, code),
      expiresAt: new Date(Date.now() + OTP_LIFETIME_MS),
    });
    const sms = await queueMessage(tx, {
      channel: "sms",
      recipients: [row.phone],
      sender: row.smsFrom,
      body: text(code),
      redactedBody: text(REDACTED),
      purpose: "portal.otp",
    });
    await linkMessageToRequest(tx, sms.messageId, row.id);
    await recordAudit(tx, {
      action: "form_request.otp_sent",
      templateIdentifier: row.templateIdentifier,
      metadata: { formRequestId: row.id, messageId: sms.messageId },
    });
    return sms;
  });
  await runJobNow(services, jobId, messageJobHandler);
  return { sent: true, resendAfterSeconds: OTP_RESEND_AFTER_MS / 1000 };
}

/** Identification passed in the last 30 minutes, in this browser (its identification cookie). */
function identityChecked(row: RequestRow, identityToken: string | undefined) {
  if (
    !row.identityVerifiedAt ||
    Date.now() - row.identityVerifiedAt.getTime() > IDENTITY_WINDOW_MS ||
    !row.identityTokenHash ||
    !identityToken ||
    !safeEqual(sha256Hex(identityToken), row.identityTokenHash)
  ) {
    throw new AppError("unauthorized", "enter the case number and phone number first");
  }
}

/** The OTP steps: the link, and the identification cookie of the browser that passed identification. */
export interface OtpStepAccess {
  linkToken: string;
  identityToken: string | undefined;
}

/** Sends a new OTP: only after identification, 30 s after the last one, at most 5 per phone and hour. */
export async function resendOtp(services: Services, request: RequestMeta, input: OtpStepAccess) {
  const row = await byLink(services, input.linkToken);
  usable(row);
  identityChecked(row, input.identityToken);
  return sendOtpFor(portalContext(services, row, request), row);
}

/** Step 3 with two-factor on: the code of the newest challenge; 5 wrong codes end it. */
export async function checkOtp(services: Services, request: RequestMeta, input: OtpStepAccess & { code: string }) {
  const row = await byLink(services, input.linkToken);
  usable(row);
  identityChecked(row, input.identityToken);
  const ctx = portalContext(services, row, request);
  // As with identification: the newest open challenge is read and counted under its row lock, so
  // a burst of parallel codes is compared one after another and ends after 5 wrong ones.
  const outcome = await inTransaction(ctx, async (tx) => {
    const [challenge] = await tx.scope
      .select(
        otpChallenges,
        eq(otpChallenges.formRequestId, row.id),
        isNull(otpChallenges.endedAt),
        gt(otpChallenges.expiresAt, new Date()),
      )
      .orderBy(desc(otpChallenges.createdAt))
      .limit(1)
      .for("update");
    if (!challenge) return { result: "none" as const };
    if (safeEqual(otpHash(services, row.id, input.code), challenge.codeHash)) {
      await tx.scope.update(otpChallenges, { endedAt: new Date() }, eq(otpChallenges.id, challenge.id));
      return { result: "matched" as const };
    }
    const failed = challenge.failedAttempts + 1;
    await tx.scope.update(
      otpChallenges,
      { failedAttempts: failed, ...(failed >= MAX_OTP_TRIES && { endedAt: new Date() }) },
      eq(otpChallenges.id, challenge.id),
    );
    return { result: "wrong" as const, left: Math.max(0, MAX_OTP_TRIES - failed) };
  });
  if (outcome.result === "none") throw new AppError("unauthorized", "no valid code: request a new one");
  if (outcome.result === "wrong") {
    throw new AppError("unauthorized", outcome.left === 0 ? "too many wrong codes: request a new one" : "wrong code", {
      attemptsLeft: outcome.left,
    });
  }
  return issueAccess(ctx, row);
}

/** The request and a portal context for a valid access token (after identification and OTP). */
async function byAccess(
  services: Services,
  request: RequestMeta,
  accessToken: string | undefined,
  linkToken?: string,
): Promise<{ row: RequestRow; ctx: OrgContext }> {
  if (!accessToken) throw new AppError("unauthorized", "please identify again");
  const [row] = await services.db
    .select()
    .from(formRequests)
    .where(eq(formRequests.accessTokenHash, sha256Hex(accessToken)))
    .limit(1);
  if (!row || !row.accessExpiresAt || row.accessExpiresAt.getTime() < Date.now())
    throw new AppError("unauthorized", "please identify again");
  // The access of one link does not open another link's page.
  if (linkToken !== undefined && !safeEqual(sha256Hex(linkToken), row.linkTokenHash))
    throw new AppError("unauthorized", "please identify again");
  usable(row);
  // Each of these calls may write (drafts, uploads, audit entries, webhooks): one pace per
  // recipient, kept across re-identification, shared by every API instance.
  await consumeRateLimit(services.db, {
    key: `portal-access:${row.id}`,
    limit: PORTAL_ACCESS_CALLS_PER_MINUTE,
    windowSeconds: 60,
  });
  return { row, ctx: portalContext(services, row, request) };
}

/**
 * The uploads of the portal's form: its access cookie and link give the request's organization
 * and template (the REST upload door has no other credential for a recipient).
 */
export async function authenticatePortalUpload(services: Services, input: Required<PortalAccess>) {
  const { row } = await byAccess(
    services,
    { requestId: "", ip: null, userAgent: null },
    input.accessToken,
    input.linkToken,
  );
  return {
    organizationId: row.organizationId,
    formRequestId: row.id,
    templateIdentifier: row.templateIdentifier,
    accessExpiresAt: row.accessExpiresAt!,
  };
}

/** The recipient's access (from the portal's HTTP-only cookie) and, from the page, its link. */
export interface PortalAccess {
  accessToken: string | undefined;
  linkToken?: string;
}

const draftKeyOf = (row: RequestRow) => `form-request:${row.id}`;

export async function portalTemplate(services: Services, request: RequestMeta, input: PortalAccess): Promise<Template> {
  const { row, ctx } = await byAccess(services, request, input.accessToken, input.linkToken);
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
  if (!template || template.status !== "active") throw new AppError("not_found", "this form is no longer available");
  return toTemplate(template);
}

export async function portalSaveDraft(
  services: Services,
  request: RequestMeta,
  input: PortalAccess & { values: FormValues },
) {
  const { row, ctx } = await byAccess(services, request, input.accessToken, input.linkToken);
  return saveDraft(ctx, {
    templateIdentifier: row.templateIdentifier,
    draftKey: draftKeyOf(row),
    values: input.values,
  });
}

export async function portalLoadDraft(services: Services, request: RequestMeta, input: PortalAccess) {
  const { row, ctx } = await byAccess(services, request, input.accessToken, input.linkToken);
  return getDraft(ctx, { templateIdentifier: row.templateIdentifier, draftKey: draftKeyOf(row) });
}

/** Submits through the F10 pipeline (actor `portal`), then e-mails the result to emailTo. */
export async function portalSubmit(
  services: Services,
  request: RequestMeta,
  input: PortalAccess & { values: FormValues },
) {
  const { row, ctx } = await byAccess(services, request, input.accessToken, input.linkToken);
  // Claim the request first, so two tabs cannot submit it twice.
  const [claimed] = await services.db
    .update(formRequests)
    .set({ status: "submitted", accessTokenHash: null, accessExpiresAt: null, updatedAt: new Date() })
    .where(and(eq(formRequests.id, row.id), eq(formRequests.status, "verified")))
    .returning({ id: formRequests.id });
  if (!claimed) throw new AppError("conflict", "this form was already submitted");
  try {
    const result = await submitForm(
      ctx,
      { templateIdentifier: row.templateIdentifier, values: input.values },
      {
        formRequestId: row.id,
        draftKey: draftKeyOf(row),
        rnummer: row.rnummer,
        phone: row.phone,
        emailTo: row.emailTo,
        emailSubject: row.emailSubject,
      },
    );
    await linkSubmission(services, row.id, result.submissionId);
    return { ok: true as const, submissionId: result.submissionId, rnummer: row.rnummer };
  } catch (error) {
    // Only what did not commit is rolled back. If the submission is stored (the error came after
    // its commit), the request stays submitted, or a retry would store it twice; if that cannot
    // even be checked, it stays claimed too: staff can send a new link, a duplicate cannot be undone.
    const [stored] = await services.db
      .select({ id: submissions.id })
      .from(submissions)
      .where(eq(submissions.formRequestId, row.id))
      .limit(1);
    if (stored) {
      services.log.warn({ err: error, formRequestId: row.id }, "portal submission stored; a later step failed");
      await linkSubmission(services, row.id, stored.id);
      return { ok: true as const, submissionId: stored.id, rnummer: row.rnummer };
    }
    // Validation failed (or the store did): the recipient may correct and submit again.
    await services.db
      .update(formRequests)
      .set({ status: "verified", accessTokenHash: row.accessTokenHash, accessExpiresAt: row.accessExpiresAt })
      .where(and(eq(formRequests.id, row.id), eq(formRequests.status, "submitted")));
    throw error;
  }
}

/** Records which submission answered the request; the submission itself already names the request. */
async function linkSubmission(services: Services, formRequestId: string, submissionId: string): Promise<void> {
  await services.db
    .update(formRequests)
    .set({ submissionId })
    .where(eq(formRequests.id, formRequestId))
    .catch((error: unknown) =>
      services.log.warn({ err: error, formRequestId }, "linking the submission to its form request failed"),
    );
}
