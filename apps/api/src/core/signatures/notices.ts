import {
  eq,
  inArray,
  isNull,
  memberships,
  signatureNotices,
  signatureSigners,
  users,
  type SignatureNoticeChannel,
  type SignatureNoticeKind,
  type SignatureNoticeStatus,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, systemContext, type OrgContext } from "../context";
import type { JobHandler } from "../jobs/execute";
import { enqueueJob } from "../jobs/queue";
import { queueMessage, REDACTED } from "../messaging/messaging";
import { signatureReminderSms, smsLocale } from "../messaging/sms-texts";
import { organizationProfile } from "../organizations/profile";
import type { SignatureEventListener } from "./events";
import { expireIfDue } from "./requests";
import {
  findSignatureRequest,
  OPEN_STATUSES,
  signingLink,
  pinnedDocumentIdOf,
  versionOf,
  type SignatureRequestRow,
} from "./request-read";

/**
 * Reminders to signers and notices to staff. Each is one `signature_notices` row, unique per
 * (request, kind, signer, sequence), written together with a `signature.notice` job: the sweep, the
 * expiry and the decline only queue it (any number of processes may try; the key lets one row in),
 * and the job decides and sends under that row's lock, so a notice goes out once even when a lease
 * runs out and another worker takes the job again. What happened is an audit entry of the request,
 * which its timeline shows.
 */
export const NOTICE_JOB = "signature.notice";
const NOTICE_MAX_ATTEMPTS = 8;
const NOTICE_RETRY_MS = [0, 10_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 7_200_000];

/**
 * Staff hear of a request that ended unsigned by e-mail too (its webhook is the other half): a
 * listener of signature events (events.ts), added by services.ts.
 */
export const noticeOfUnsignedEnd: SignatureEventListener = async (tx, event, signatureId) => {
  if (event === "signature.expired" || event === "signature.declined")
    await queueSignatureNotice(tx, signatureId, event === "signature.expired" ? "expired" : "declined");
};

/** Queues a notice of a request once; false when it was queued before (by this or another process). */
export async function queueSignatureNotice(
  ctx: OrgContext,
  signatureRequestId: string,
  kind: SignatureNoticeKind,
  /** Several signers: the signer a reminder is for. */
  signerId: string | null = null,
): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const [notice] = await tx.scope
      .insert(signatureNotices, { signatureRequestId, kind, signerId })
      .onConflictDoNothing()
      .returning({ id: signatureNotices.id });
    if (!notice) return false;
    await enqueueJob(tx.scope, {
      kind: NOTICE_JOB,
      payload: { noticeId: notice.id },
      maxAttempts: NOTICE_MAX_ATTEMPTS,
    });
    await afterCommit(tx, "jobs.wake", () => ctx.services.jobs?.wake());
    return true;
  });
}

interface NoticeOutcome {
  status: SignatureNoticeStatus;
  channel: SignatureNoticeChannel | null;
  messageId?: string;
}

/** Reminds the signer by SMS when the request carries a phone; otherwise records that there was no channel. */
async function remindSigner(
  tx: OrgContext,
  request: SignatureRequestRow,
  signerId: string | null,
): Promise<NoticeOutcome> {
  const row = await expireIfDue(tx, request);
  // Signed, declined or expired since the sweep queued it: nobody is waiting for a signature any more.
  if (!OPEN_STATUSES.includes(row.status) || row.visibility !== "active") return { status: "cancelled", channel: null };
  // Several signers: the signer's own phone and link (the patient's are the request's); staff sign in the console.
  const [signer] = signerId
    ? await tx.scope.select(signatureSigners, eq(signatureSigners.id, signerId)).limit(1)
    : [null];
  if (signer && signer.status !== "pending" && signer.status !== "opened")
    return { status: "cancelled", channel: null };
  const phone = signer && signer.kind !== "patient" ? signer.phone : row.patientPhone;
  const base = {
    signatureId: row.id,
    documentId: pinnedDocumentIdOf(row),
    kind: "reminder",
    ...(signer && { signerId: signer.id, role: signer.role }),
  };
  if (!phone) {
    await recordAudit(tx, { action: "signature.reminder_not_sent", metadata: { ...base, reason: "no_channel" } });
    return { status: "no_channel", channel: "none" };
  }
  const org = await organizationProfile(tx);
  // In the language of the document the signer will read (issue 19), else the organization's.
  const locale = smsLocale((await versionOf(tx, row)).language, org.locale);
  const text = (link: string) => signatureReminderSms(locale, { organization: org.name, link });
  // The signing link is a bearer credential: staff see the text with the link blanked (as F1's link SMS).
  const link =
    signer?.kind === "link" && signer.tokenEnc
      ? signingLink(tx, tx.services.secrets.open(signer.tokenEnc))
      : (row.assignmentUrl ?? signingLink(tx, tx.services.secrets.open(row.tokenEnc)));
  const sms = await queueMessage(tx, {
    channel: "sms",
    recipients: [phone],
    body: text(link),
    redactedBody: text(REDACTED),
    purpose: "signature.reminder",
  });
  await recordAudit(tx, {
    action: "signature.reminder_sent",
    metadata: { ...base, channel: "sms", messageId: sms.messageId },
  });
  return { status: "sent", channel: "sms", messageId: sms.messageId };
}

/** The addresses staff notices go to: the organization's active owners and admins. */
async function staffNoticeRecipients(tx: OrgContext): Promise<string[]> {
  const rows = await tx.scope
    .query({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(inArray(memberships.role, ["owner", "admin"]), isNull(memberships.deactivatedAt));
  return [...new Set(rows.map((r) => r.email))].sort();
}

/**
 * The e-mail telling staff a request ended unsigned. It names the document and links the request
 * in the console, and carries no patient data: e-mail leaves the service, the console does not.
 */
export function staffNoticeEmail(
  locale: "de" | "en",
  values: { organization: string; title: string; kind: "expired" | "declined"; url: string },
): { subject: string; body: string } {
  if (locale === "en") {
    const what = values.kind === "expired" ? "expired unsigned" : "was declined by the signer";
    return {
      subject: `Signature request ${values.kind}: ${values.title}`,
      body: `${values.organization}: the signature request for "${values.title}" ${what}.\n\nOpen it in the console: ${values.url}\n`,
    };
  }
  const what =
    values.kind === "expired" ? "ist ohne Unterschrift abgelaufen" : "wurde von der unterzeichnenden Person abgelehnt";
  return {
    subject: `Signaturanfrage ${values.kind === "expired" ? "abgelaufen" : "abgelehnt"}: ${values.title}`,
    body: `${values.organization}: Die Signaturanfrage für „${values.title}“ ${what}.\n\nIn der Konsole öffnen: ${values.url}\n`,
  };
}

/** Tells the organization's owners and admins by e-mail (the webhook went out with the event itself). */
async function noticeStaff(
  tx: OrgContext,
  row: SignatureRequestRow,
  kind: "expired" | "declined",
): Promise<NoticeOutcome> {
  const base = { signatureId: row.id, documentId: pinnedDocumentIdOf(row), event: `signature.${kind}` };
  const recipients = await staffNoticeRecipients(tx);
  if (recipients.length === 0) {
    await recordAudit(tx, {
      action: "signature.staff_notified",
      metadata: { ...base, channel: "none", recipients: 0 },
    });
    return { status: "no_channel", channel: "none" };
  }
  const org = await organizationProfile(tx);
  const title = (await versionOf(tx, row)).title;
  const url = `${tx.services.config.publicWebUrl}/signature-requests/${row.id}`;
  const email = staffNoticeEmail(org.locale, { organization: org.name, title, kind, url });
  const message = await queueMessage(tx, {
    channel: "email",
    recipients,
    subject: email.subject,
    body: email.body,
    purpose: `signature.${kind}_notice`,
  });
  await recordAudit(tx, {
    action: "signature.staff_notified",
    metadata: { ...base, channel: "email", recipients: recipients.length, messageId: message.messageId },
  });
  return { status: "sent", channel: "email", messageId: message.messageId };
}

/** Handles one queued notice under its row's lock; a notice handled before (another attempt, another worker) is left alone. */
export async function handleSignatureNotice(ctx: OrgContext, { noticeId }: { noticeId: string }) {
  await inTransaction(ctx, async (tx) => {
    const [notice] = await tx.scope.select(signatureNotices, eq(signatureNotices.id, noticeId)).limit(1).for("update");
    if (!notice || notice.status !== "queued") return;
    const request = await findSignatureRequest(tx, notice.signatureRequestId, true);
    const outcome =
      notice.kind === "reminder"
        ? await remindSigner(tx, request, notice.signerId)
        : await noticeStaff(tx, request, notice.kind);
    await tx.scope.update(
      signatureNotices,
      { status: outcome.status, channel: outcome.channel, messageId: outcome.messageId ?? null, handledAt: new Date() },
      eq(signatureNotices.id, notice.id),
    );
  });
}

export const signatureNoticeJobHandler: JobHandler = {
  run: async (job, services) => {
    const { noticeId } = job.payload as { noticeId?: string };
    if (!job.organizationId || typeof noticeId !== "string") throw new Error("signature.notice job without its notice");
    await handleSignatureNotice(systemContext(services, job.organizationId, "signature-notice"), { noticeId });
  },
  retryDelayMs: (attempt) => NOTICE_RETRY_MS[Math.min(attempt, NOTICE_RETRY_MS.length - 1)]!,
};

/** The notices of a request (staff detail's reminder summary and tests). */
export function noticesOf(ctx: OrgContext, signatureRequestId: string) {
  return ctx.scope
    .select(signatureNotices, eq(signatureNotices.signatureRequestId, signatureRequestId))
    .orderBy(signatureNotices.createdAt);
}
