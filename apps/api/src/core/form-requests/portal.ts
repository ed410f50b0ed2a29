import { createHmac, randomInt } from "node:crypto";
import type { FormValues, Template } from "@clinsign/contracts";
import { and, desc, eq, formRequests, gt, isNull, organizations, OrgScope, otpChallenges, sql, templates } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext, RequestMeta, Services } from "../context";
import { randomSecret, safeEqual, sha256Hex } from "../crypto";
import { getDraft, saveDraft } from "../drafts/drafts";
import { AppError } from "../errors";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage } from "../messaging/messaging";
import { consumeRateLimit } from "../rate-limit";
import { submitForm } from "../submissions/submissions";
import { toTemplate } from "../templates/templates";
import { normaliseEntered } from "./phone";

export const MAX_IDENTITY_TRIES = 5;
export const MAX_OTP_TRIES = 5;
export const OTP_LIFETIME_MS = 10 * 60_000;
export const OTP_RESEND_AFTER_MS = 30_000;
export const OTP_SENDS_PER_PHONE_HOUR = 5;
/** After rnummer and phone matched, the OTP step must follow within this time. */
const IDENTITY_WINDOW_MS = 30 * 60_000;
const ACCESS_LIFETIME_MS = 2 * 3600_000;

type RequestRow = typeof formRequests.$inferSelect;

const gone = () => new AppError("not_found", "this link is unknown or has expired");

async function byLink(services: Services, linkToken: string): Promise<RequestRow> {
  const [row] = await services.db.select().from(formRequests).where(eq(formRequests.linkTokenHash, sha256Hex(linkToken))).limit(1);
  if (!row || row.expiresAt.getTime() < Date.now()) throw gone();
  return row;
}

function portalContext(services: Services, row: RequestRow, request: RequestMeta): OrgContext {
  return { services, scope: new OrgScope(services.db, row.organizationId), actor: { type: "portal", id: row.id }, request };
}

async function otpEnabled(services: Services, organizationId: string): Promise<boolean> {
  const [org] = await services.db.select({ otp: organizations.otpEnabled }).from(organizations).where(eq(organizations.id, organizationId));
  return org?.otp ?? false;
}

function usable(row: RequestRow) {
  if (row.status === "locked") throw new AppError("forbidden", "this link is locked after too many wrong entries; ask the clinic for a new one");
  if (row.status === "submitted") throw new AppError("conflict", "this form was already submitted");
}

/** Step 1: what the portal page shows before identification (no personal data). */
export async function openFormRequest(services: Services, input: { linkToken: string }) {
  const row = await byLink(services, input.linkToken);
  const [template] = await new OrgScope(services.db, row.organizationId).select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
  return {
    status: row.status,
    templateTitle: template?.title ?? null,
    otpRequired: await otpEnabled(services, row.organizationId),
    expiresAt: row.expiresAt.toISOString(),
  };
}

async function issueAccess(ctx: OrgContext, row: RequestRow): Promise<{ accessToken: string; expiresAt: string }> {
  const accessToken = randomSecret(32);
  const expiresAt = new Date(Date.now() + ACCESS_LIFETIME_MS);
  await ctx.scope.update(formRequests, { accessTokenHash: sha256Hex(accessToken), accessExpiresAt: expiresAt, status: "verified", updatedAt: new Date() }, eq(formRequests.id, row.id));
  await recordAudit(ctx, { action: "form_request.verified", templateIdentifier: row.templateIdentifier, metadata: { formRequestId: row.id } });
  return { accessToken, expiresAt: expiresAt.toISOString() };
}

/**
 * Step 2: the recipient enters rnummer and phone. Both are compared in constant time; the fifth
 * wrong entry locks the request. With two-factor on, a match sends an OTP instead of access.
 */
export async function verifyIdentity(services: Services, request: RequestMeta, input: { linkToken: string; rnummer: string; phone: string }) {
  await consumeRateLimit(services.db, { key: `portal-verify:ip:${request.ip ?? "unknown"}`, limit: 30, windowSeconds: 600 });
  const row = await byLink(services, input.linkToken);
  usable(row);
  const ctx = portalContext(services, row, request);
  const entered = normaliseEntered(input.phone) ?? input.phone.trim();
  const rnummerOk = safeEqual(input.rnummer.trim(), row.rnummer);
  const phoneOk = safeEqual(entered, row.phone);
  if (!(rnummerOk && phoneOk)) {
    const [updated] = await services.db
      .update(formRequests)
      .set({
        failedChecks: sql`${formRequests.failedChecks} + 1`,
        status: sql`case when ${formRequests.failedChecks} + 1 >= ${MAX_IDENTITY_TRIES} then 'locked' else ${formRequests.status} end`,
        updatedAt: new Date(),
      })
      .where(eq(formRequests.id, row.id))
      .returning({ failedChecks: formRequests.failedChecks });
    const left = Math.max(0, MAX_IDENTITY_TRIES - updated!.failedChecks);
    await recordAudit(ctx, { action: "form_request.identity_failed", templateIdentifier: row.templateIdentifier, metadata: { formRequestId: row.id, attemptsLeft: left } });
    if (left === 0) throw new AppError("forbidden", "this link is locked after too many wrong entries; ask the clinic for a new one");
    throw new AppError("unauthorized", "case number and phone number do not match", { attemptsLeft: left });
  }
  await services.db.update(formRequests).set({ identityVerifiedAt: new Date(), failedChecks: 0, updatedAt: new Date() }).where(eq(formRequests.id, row.id));
  if (await otpEnabled(services, row.organizationId)) {
    await sendOtpFor(ctx, row);
    return { otpRequired: true as const, accessToken: null, expiresAt: null };
  }
  return { otpRequired: false as const, ...(await issueAccess(ctx, row)) };
}

function otpHash(services: Services, challengeOwner: string, code: string): string {
  return createHmac("sha256", services.secrets.deriveKey("otp")).update(`${challengeOwner}:${code}`).digest("hex");
}

async function sendOtpFor(ctx: OrgContext, row: RequestRow): Promise<{ sent: true; resendAfterSeconds: number }> {
  const { services } = ctx;
  const [last] = await ctx.scope.select(otpChallenges, eq(otpChallenges.formRequestId, row.id)).orderBy(desc(otpChallenges.createdAt)).limit(1);
  if (last && Date.now() - last.createdAt.getTime() < OTP_RESEND_AFTER_MS) {
    const wait = Math.ceil((OTP_RESEND_AFTER_MS - (Date.now() - last.createdAt.getTime())) / 1000);
    throw new AppError("rate_limited", `a new code can be sent in ${wait} s`, { retryAfterSeconds: wait });
  }
  await consumeRateLimit(services.db, { key: `otp-sms:${row.phone}`, limit: OTP_SENDS_PER_PHONE_HOUR, windowSeconds: 3600 });
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const { jobId } = await ctx.scope.transaction(async (scope) => {
    const tx = { ...ctx, scope };
    await scope.update(otpChallenges, { endedAt: new Date() }, eq(otpChallenges.formRequestId, row.id), isNull(otpChallenges.endedAt));
    await scope.insert(otpChallenges, { formRequestId: row.id, codeHash: otpHash(services, row.id, code), expiresAt: new Date(Date.now() + OTP_LIFETIME_MS) });
    const sms = await queueMessage(tx, { channel: "sms", recipients: [row.phone], sender: row.smsFrom, body: `Your code: ${code} (valid for 10 minutes)`, purpose: "portal.otp" });
    await recordAudit(tx, { action: "form_request.otp_sent", templateIdentifier: row.templateIdentifier, metadata: { formRequestId: row.id, messageId: sms.messageId } });
    return sms;
  });
  await runJobNow(services, jobId, messageJobHandler);
  return { sent: true, resendAfterSeconds: OTP_RESEND_AFTER_MS / 1000 };
}

function identityChecked(row: RequestRow) {
  if (!row.identityVerifiedAt || Date.now() - row.identityVerifiedAt.getTime() > IDENTITY_WINDOW_MS) {
    throw new AppError("unauthorized", "enter the case number and phone number first");
  }
}

/** Sends a new OTP: only after identification, 30 s after the last one, at most 5 per phone and hour. */
export async function resendOtp(services: Services, request: RequestMeta, input: { linkToken: string }) {
  const row = await byLink(services, input.linkToken);
  usable(row);
  identityChecked(row);
  return sendOtpFor(portalContext(services, row, request), row);
}

/** Step 3 with two-factor on: the code of the newest challenge; 5 wrong codes end it. */
export async function checkOtp(services: Services, request: RequestMeta, input: { linkToken: string; code: string }) {
  const row = await byLink(services, input.linkToken);
  usable(row);
  identityChecked(row);
  const ctx = portalContext(services, row, request);
  const [challenge] = await ctx.scope
    .select(otpChallenges, eq(otpChallenges.formRequestId, row.id), isNull(otpChallenges.endedAt), gt(otpChallenges.expiresAt, new Date()))
    .orderBy(desc(otpChallenges.createdAt))
    .limit(1);
  if (!challenge) throw new AppError("unauthorized", "no valid code: request a new one");
  if (!safeEqual(otpHash(services, row.id, input.code), challenge.codeHash)) {
    const [updated] = await services.db
      .update(otpChallenges)
      .set({
        failedAttempts: sql`${otpChallenges.failedAttempts} + 1`,
        endedAt: sql`case when ${otpChallenges.failedAttempts} + 1 >= ${MAX_OTP_TRIES} then now() else null end`,
      })
      .where(and(eq(otpChallenges.id, challenge.id), isNull(otpChallenges.endedAt)))
      .returning({ failed: otpChallenges.failedAttempts });
    const left = Math.max(0, MAX_OTP_TRIES - (updated?.failed ?? MAX_OTP_TRIES));
    throw new AppError("unauthorized", left === 0 ? "too many wrong codes: request a new one" : "wrong code", { attemptsLeft: left });
  }
  const [ended] = await services.db
    .update(otpChallenges)
    .set({ endedAt: new Date() })
    .where(and(eq(otpChallenges.id, challenge.id), isNull(otpChallenges.endedAt)))
    .returning({ id: otpChallenges.id });
  if (!ended) throw new AppError("unauthorized", "no valid code: request a new one");
  return issueAccess(ctx, row);
}

/** The request and a portal context for a valid access token (after identification and OTP). */
async function byAccess(services: Services, request: RequestMeta, accessToken: string): Promise<{ row: RequestRow; ctx: OrgContext }> {
  const [row] = await services.db.select().from(formRequests).where(eq(formRequests.accessTokenHash, sha256Hex(accessToken))).limit(1);
  if (!row || !row.accessExpiresAt || row.accessExpiresAt.getTime() < Date.now()) throw new AppError("unauthorized", "please identify again");
  usable(row);
  return { row, ctx: portalContext(services, row, request) };
}

const draftKeyOf = (row: RequestRow) => `form-request:${row.id}`;

export async function portalTemplate(services: Services, request: RequestMeta, input: { accessToken: string }): Promise<Template> {
  const { row, ctx } = await byAccess(services, request, input.accessToken);
  const [template] = await ctx.scope.select(templates, eq(templates.identifier, row.templateIdentifier)).limit(1);
  if (!template || template.status !== "active") throw new AppError("not_found", "this form is no longer available");
  return toTemplate(template);
}

export async function portalSaveDraft(services: Services, request: RequestMeta, input: { accessToken: string; values: FormValues }) {
  const { row, ctx } = await byAccess(services, request, input.accessToken);
  return saveDraft(ctx, { templateIdentifier: row.templateIdentifier, draftKey: draftKeyOf(row), values: input.values });
}

export async function portalLoadDraft(services: Services, request: RequestMeta, input: { accessToken: string }) {
  const { row, ctx } = await byAccess(services, request, input.accessToken);
  return getDraft(ctx, { templateIdentifier: row.templateIdentifier, draftKey: draftKeyOf(row) });
}

/** Submits through the F10 pipeline (actor `portal`), then e-mails the result to emailTo. */
export async function portalSubmit(services: Services, request: RequestMeta, input: { accessToken: string; values: FormValues }) {
  const { row, ctx } = await byAccess(services, request, input.accessToken);
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
      { templateIdentifier: row.templateIdentifier, values: input.values, draftKey: draftKeyOf(row) },
      { formRequestId: row.id, rnummer: row.rnummer, phone: row.phone, emailTo: row.emailTo, emailSubject: row.emailSubject },
    );
    await services.db.update(formRequests).set({ submissionId: result.submissionId }).where(eq(formRequests.id, row.id));
    return { ok: true as const, submissionId: result.submissionId, rnummer: row.rnummer };
  } catch (error) {
    // Validation failed (or the store did): the recipient may correct and submit again.
    await services.db
      .update(formRequests)
      .set({ status: "verified", accessTokenHash: row.accessTokenHash, accessExpiresAt: row.accessExpiresAt })
      .where(eq(formRequests.id, row.id));
    throw error;
  }
}
