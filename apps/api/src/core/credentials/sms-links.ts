import { eq, formRequests } from "@clinsign/db";
import { contextFor, type OrgContext, type Principal, type RequestMeta, type Services } from "../context";
import { safeEqual, sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { addressKey, consumeRateLimit } from "../rate-limit";

/**
 * The credentials of an SMS form request, looked up by hash across organizations: the link the
 * SMS carries (before identification) and the access cookie (after it). Each lookup answers the
 * request's organization; everything after it goes through `contextFor` and that organization's
 * OrgScope (core/form-requests/sms-form.ts).
 */

/**
 * The recipient's access after identification: an HTTP-only, SameSite=Strict cookie scoped to
 * the SMS form's pages (`/f/`), never a value the page's script can read or a URL carries.
 */
export const SMS_FORM_ACCESS_COOKIE = "cs_form_access";
/**
 * The browser that passed identification (rnummer and phone) while two-factor is on: an HTTP-only
 * cookie like the access one; only that browser may ask for a code or enter one, so whoever else
 * holds the link cannot burn the recipient's OTP tries.
 */
export const SMS_FORM_IDENTITY_COOKIE = "cs_form_identified";

export type SmsFormRequestRow = typeof formRequests.$inferSelect;

/** The principal of an SMS recipient who passed identification (and the OTP). */
export type SmsRecipient = Extract<Principal, { kind: "sms_recipient" }>;

/**
 * Calls one recipient's access may make per minute (form, drafts, uploads, submit), as an embed
 * session may (FORM_SESSION_CALLS_PER_MINUTE): autosave every 1.5 s stays far below it.
 */
export const SMS_RECIPIENT_CALLS_PER_MINUTE = 120;
/** Identification attempts (rnummer and phone) one address may make in ten minutes, over all links. */
const IDENTIFICATION_ATTEMPTS_PER_ADDRESS = 30;

export const linkGone = () => new AppError("not_found", "this link is unknown or has expired");

/** A request's state refuses every step after opening: cancelled (404), locked (403) or submitted (409). */
export function assertSmsRequestUsable(row: Pick<SmsFormRequestRow, "status">): void {
  if (row.status === "cancelled") throw linkGone();
  if (row.status === "locked")
    throw new AppError("forbidden", "this link is locked after too many wrong entries; ask the clinic for a new one");
  if (row.status === "submitted") throw new AppError("conflict", "this form was already submitted");
}

/** The request an SMS link names, in any state and expired too (the page says so); 404 when none. */
export async function findSmsLink(services: Services, linkToken: string): Promise<SmsFormRequestRow> {
  const [row] = await services.db
    .select()
    .from(formRequests)
    .where(eq(formRequests.linkTokenHash, sha256Hex(linkToken)))
    .limit(1);
  if (!row) throw linkGone();
  return row;
}

/**
 * Counts one identification attempt from `ip` (429 past the limit), before the link is even
 * looked up: guessing links or entries from one address is slowed the same way.
 */
export async function countIdentificationAttempt(services: Services, ip: string | null): Promise<void> {
  await consumeRateLimit(services.db, {
    // The counters keep their stored names (`portal-…`), so a deploy does not reset them.
    key: `portal-verify:ip:${addressKey(ip)}`,
    limit: IDENTIFICATION_ATTEMPTS_PER_ADDRESS,
    windowSeconds: 600,
  });
}

/** Counts one OTP text to `phone` (429 past `perHour`), shared by every link of that phone. */
export async function countOtpText(services: Services, phone: string, perHour: number): Promise<void> {
  await consumeRateLimit(services.db, { key: `otp-sms:${phone}`, limit: perHour, windowSeconds: 3600 });
}

/**
 * The recipient behind an access cookie, for the page of `linkToken`: 401 without a live access or
 * for another link's page; the request's state as `assertSmsRequestUsable` says. Counts the call
 * (each may write: drafts, uploads, audit entries), one pace per request shared by every instance.
 */
export async function authenticateSmsRecipient(
  services: Services,
  credentials: { accessToken: string | undefined; linkToken: string },
): Promise<SmsRecipient> {
  const again = () => new AppError("unauthorized", "please identify again");
  if (!credentials.accessToken) throw again();
  const [row] = await services.db
    .select()
    .from(formRequests)
    .where(eq(formRequests.accessTokenHash, sha256Hex(credentials.accessToken)))
    .limit(1);
  if (!row || !row.accessExpiresAt || row.accessExpiresAt.getTime() < Date.now()) throw again();
  // The access of one link does not open another link's page.
  if (!safeEqual(sha256Hex(credentials.linkToken), row.linkTokenHash)) throw again();
  assertSmsRequestUsable(row);
  await consumeRateLimit(services.db, {
    key: `portal-access:${row.id}`,
    limit: SMS_RECIPIENT_CALLS_PER_MINUTE,
    windowSeconds: 60,
  });
  return {
    kind: "sms_recipient",
    organizationId: row.organizationId,
    formRequestId: row.id,
    templateIdentifier: row.templateIdentifier,
    accessExpiresAt: row.accessExpiresAt,
  };
}

/**
 * The holder of an SMS link before identification: the request's organization, acting as its SMS
 * recipient (audit entries name the request), with no form to fill yet.
 */
export function smsLinkContext(services: Services, link: SmsFormRequestRow, request: RequestMeta): OrgContext {
  const { formGrant: _notYet, ...ctx } = contextFor(
    services,
    {
      kind: "sms_recipient",
      organizationId: link.organizationId,
      formRequestId: link.id,
      templateIdentifier: link.templateIdentifier,
      accessExpiresAt: link.expiresAt,
    },
    request,
  );
  return ctx;
}
