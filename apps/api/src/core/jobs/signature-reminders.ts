import {
  and,
  eq,
  gt,
  inArray,
  organizations,
  signatureNotices,
  signatureRequests,
  signatureSigners,
  sql,
  type SignatureRequestStatus,
} from "@clinsign/db";
import { nowOf, systemContext, type Services } from "../context";
import { queueSignatureNotice } from "../signatures/notices";
import { OPEN_STATUSES } from "../signatures/request-read";

/**
 * The reminder sweep's one read across organizations (a system job, like the expiry sweep): open,
 * active requests whose reminder fell due by `now` (their own `reminder_days`, else their
 * organization's `signature_reminder_days`; 0 means none) and that have no reminder yet, at most
 * `batchSize`. Each is then queued in its own organization's scope (core/signatures/notices.ts).
 */
export async function signatureRequestsDueForReminder(
  services: Services,
  openStatuses: SignatureRequestStatus[],
  now: Date,
  batchSize: number,
): Promise<{ id: string; organizationId: string }[]> {
  const days = sql`coalesce(${signatureRequests.reminderDays}, ${organizations.signatureReminderDays})`;
  const at = sql`${now.toISOString()}::timestamptz`;
  return services.db
    .select({ id: signatureRequests.id, organizationId: signatureRequests.organizationId })
    .from(signatureRequests)
    .innerJoin(organizations, eq(organizations.id, signatureRequests.organizationId))
    .where(
      and(
        inArray(signatureRequests.status, openStatuses),
        eq(signatureRequests.visibility, "active"),
        gt(signatureRequests.expiresAt, now),
        sql`${days} > 0`,
        sql`${signatureRequests.createdAt} + make_interval(days => ${days}) <= ${at}`,
        sql`not exists (select 1 from ${signatureNotices} where ${signatureNotices.signatureRequestId} = ${signatureRequests.id} and ${signatureNotices.kind} = 'reminder')`,
        // Requests with several signers are reminded per signer (below).
        sql`not exists (select 1 from ${signatureSigners} where ${signatureSigners.signatureRequestId} = ${signatureRequests.id})`,
      ),
    )
    .limit(batchSize);
}

/**
 * Several signers (issue 20): signers whose turn came (`activated_at`) the reminder days ago and who
 * have neither signed nor been reminded, on open, active requests; one reminder per signer.
 */
export async function signersDueForReminder(
  services: Services,
  openStatuses: SignatureRequestStatus[],
  now: Date,
  batchSize: number,
): Promise<{ id: string; organizationId: string; signerId: string }[]> {
  const days = sql`coalesce(${signatureRequests.reminderDays}, ${organizations.signatureReminderDays})`;
  const at = sql`${now.toISOString()}::timestamptz`;
  return services.db
    .select({
      id: signatureRequests.id,
      organizationId: signatureRequests.organizationId,
      signerId: signatureSigners.id,
    })
    .from(signatureSigners)
    .innerJoin(signatureRequests, eq(signatureRequests.id, signatureSigners.signatureRequestId))
    .innerJoin(organizations, eq(organizations.id, signatureRequests.organizationId))
    .where(
      and(
        inArray(signatureSigners.status, ["pending", "opened"]),
        inArray(signatureRequests.status, openStatuses),
        eq(signatureRequests.visibility, "active"),
        gt(signatureRequests.expiresAt, now),
        sql`${days} > 0`,
        sql`${signatureSigners.activatedAt} + make_interval(days => ${days}) <= ${at}`,
        sql`not exists (select 1 from ${signatureNotices} where ${signatureNotices.signatureRequestId} = ${signatureRequests.id} and ${signatureNotices.kind} = 'reminder' and ${signatureNotices.signerId} = ${signatureSigners.id})`,
      ),
    )
    .limit(batchSize);
}

/**
 * The reminder sweep: queues a reminder for each open request whose reminder fell due by the
 * services' clock. Run by every API process (server.ts); the notice key keeps it to one reminder.
 * Returns how many this call queued.
 */
export async function queueDueReminders(services: Services, batchSize = 200): Promise<number> {
  const due = await signatureRequestsDueForReminder(services, OPEN_STATUSES, nowOf(services), batchSize);
  let queued = 0;
  for (const { id, organizationId } of due) {
    const ctx = systemContext(services, organizationId, "reminder-sweep");
    if (await queueSignatureNotice(ctx, id, "reminder")) queued += 1;
  }
  for (const { id, organizationId, signerId } of await signersDueForReminder(
    services,
    OPEN_STATUSES,
    nowOf(services),
    batchSize,
  )) {
    const ctx = systemContext(services, organizationId, "reminder-sweep");
    if (await queueSignatureNotice(ctx, id, "reminder", signerId)) queued += 1;
  }
  return queued;
}
