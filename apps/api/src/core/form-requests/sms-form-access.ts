// The SMS form's access (sms-form.ts, sms-otp.ts): how long each step holds, the request row
// under its lock, the identification cookie's check and the access a passed identification grants.
import { eq, formRequests, notInArray } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { assertSmsRequestUsable, linkGone, type SmsFormRequestRow } from "../credentials/sms-links";
import { randomSecret, safeEqual, sha256Hex } from "../crypto";
import { AppError } from "../errors";

export const MAX_IDENTITY_TRIES = 5;
export const MAX_OTP_TRIES = 5;
export const OTP_LIFETIME_MS = 10 * 60_000;
export const OTP_RESEND_AFTER_MS = 30_000;
export const OTP_SENDS_PER_PHONE_HOUR = 5;
/** After rnummer and phone matched, the OTP step must follow within this time. */
export const IDENTITY_WINDOW_MS = 30 * 60_000;
const ACCESS_LIFETIME_MS = 2 * 3600_000;

/** The link still opens the request's steps: not expired, and its state allows them. */
export function assertLinkOpen(link: SmsFormRequestRow): void {
  if (link.expiresAt.getTime() < Date.now()) throw linkGone();
  assertSmsRequestUsable(link);
}

export function holdsAccess(row: SmsFormRequestRow, accessToken: string): boolean {
  return (
    row.status === "verified" &&
    row.accessTokenHash !== null &&
    row.accessExpiresAt !== null &&
    row.accessExpiresAt.getTime() > Date.now() &&
    safeEqual(sha256Hex(accessToken), row.accessTokenHash)
  );
}

/** Access after identification (and OTP); never for a request a parallel call locked or submitted meanwhile. */
export async function issueAccess(
  ctx: OrgContext,
  row: SmsFormRequestRow,
): Promise<{ accessToken: string; expiresAt: string }> {
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
    if (current) assertSmsRequestUsable(current);
    throw linkGone();
  }
  await recordAudit(ctx, {
    action: "form_request.verified",
    templateIdentifier: row.templateIdentifier,
    metadata: { formRequestId: row.id },
  });
  return { accessToken, expiresAt: expiresAt.toISOString() };
}

/** The request row, locked until the transaction ends: tries on one link are counted one after another. */
export async function lockedRow(ctx: OrgContext, id: string): Promise<SmsFormRequestRow | undefined> {
  const [row] = await ctx.scope.select(formRequests, eq(formRequests.id, id)).for("update");
  return row;
}

/** Identification passed in the last 30 minutes, in this browser (its identification cookie). */
export function identityChecked(row: SmsFormRequestRow, identityToken: string | undefined) {
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
