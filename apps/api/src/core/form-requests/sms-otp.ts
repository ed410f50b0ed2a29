// The SMS form's one-time code (two-factor on): sending it, at most so often, and checking it
// under its challenge's lock; a right code grants access (sms-form-access.ts).
import { createHmac, randomInt } from "node:crypto";
import { desc, eq, gt, isNull, otpChallenges } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, type OrgContext, type Services } from "../context";
import { countOtpText, type SmsFormRequestRow } from "../credentials/sms-links";
import { safeEqual } from "../crypto";
import { AppError } from "../errors";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED } from "../messaging/messaging";
import { otpSms, smsLocale } from "../messaging/sms-texts";
import { organizationProfile } from "../organizations/profile";
import { linkMessageToRequest } from "./form-requests";
import {
  assertLinkOpen,
  identityChecked,
  issueAccess,
  MAX_OTP_TRIES,
  OTP_LIFETIME_MS,
  OTP_RESEND_AFTER_MS,
  OTP_SENDS_PER_PHONE_HOUR,
} from "./sms-form-access";

function otpHash(services: Services, challengeOwner: string, code: string): string {
  return createHmac("sha256", services.secrets.deriveKey("otp")).update(`${challengeOwner}:${code}`).digest("hex");
}

export async function sendOtpFor(
  ctx: OrgContext,
  row: SmsFormRequestRow,
): Promise<{ sent: true; resendAfterSeconds: number }> {
  const { services } = ctx;
  const [last] = await ctx.scope
    .select(otpChallenges, eq(otpChallenges.formRequestId, row.id))
    .orderBy(desc(otpChallenges.createdAt))
    .limit(1);
  if (last && Date.now() - last.createdAt.getTime() < OTP_RESEND_AFTER_MS) {
    const wait = Math.ceil((OTP_RESEND_AFTER_MS - (Date.now() - last.createdAt.getTime())) / 1000);
    throw new AppError("rate_limited", `a new code can be sent in ${wait} s`, { retryAfterSeconds: wait });
  }
  await countOtpText(services, row.phone, OTP_SENDS_PER_PHONE_HOUR);
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const org = await organizationProfile(ctx);
  const text = (shown: string) =>
    otpSms(smsLocale(row.locale, org.locale), {
      organization: org.name,
      code: shown,
      minutes: OTP_LIFETIME_MS / 60_000,
    });
  // The text goes out once the challenge is stored: its first attempt runs after the outermost commit.
  await inTransaction(ctx, async (tx) => {
    await tx.scope.update(
      otpChallenges,
      { endedAt: new Date() },
      eq(otpChallenges.formRequestId, row.id),
      isNull(otpChallenges.endedAt),
    );
    await tx.scope.insert(otpChallenges, {
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
    await afterCommit(tx, "OTP text", () => runJobNow(services, sms.jobId, messageJobHandler));
  });
  return { sent: true, resendAfterSeconds: OTP_RESEND_AFTER_MS / 1000 };
}

/** The OTP steps: the link, and the identification cookie of the browser that passed identification. */
export interface OtpStep {
  link: SmsFormRequestRow;
  identityToken: string | undefined;
}

/** Sends a new OTP: only after identification, 30 s after the last one, at most 5 per phone and hour. */
export async function resendOtp(ctx: OrgContext, input: OtpStep) {
  assertLinkOpen(input.link);
  identityChecked(input.link, input.identityToken);
  return sendOtpFor(ctx, input.link);
}

/** Step 3 with two-factor on: the code of the newest challenge; 5 wrong codes end it. */
export async function checkOtp(ctx: OrgContext, input: OtpStep & { code: string }) {
  const row = input.link;
  assertLinkOpen(row);
  identityChecked(row, input.identityToken);
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
    if (safeEqual(otpHash(ctx.services, row.id, input.code), challenge.codeHash)) {
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
