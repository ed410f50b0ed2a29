// Staff's view of one signature request: its detail and timeline, its links handed over again,
// and changes made from it (the list's item, with more).
import type { RevealedSigningLink, SignatureRequestDetail, SignatureTimelineEvent } from "@clinsign/contracts";
import { patientLanguages } from "@clinsign/contracts/language-list";
import { auditLog, desc, documents, eq, inArray, sql, webhookAttempts, webhookDeliveries } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { changeSignatureRequest, type SignatureRequestChange } from "./requests";
import {
  findSignatureRequest,
  pinnedDocumentIdOf,
  signingLink,
  versionOf,
  type SignatureRequestRow,
} from "./request-read";
import { toListItem } from "./request-list";
import { latestSealJob } from "./seal";
import { revealSignerLink, signersOf } from "./signers";
import { staffSignerItems } from "./signer-views";

type AuditRow = typeof auditLog.$inferSelect;
type TimelineDraft = Omit<SignatureTimelineEvent, "delivery"> & { deliveryId?: string };

const fromTo = (value: unknown): { from?: unknown; to?: unknown } | null =>
  typeof value === "object" && value !== null && "to" in value ? (value as { from?: unknown; to?: unknown }) : null;

/**
 * The events an audit entry of the request stands for. One A7 update can change visibility,
 * expiry and link at once: that is one event each. Metadata is read field by field, so nothing
 * else an entry carries (patient data, hashes) reaches the timeline.
 */
function eventsOfEntry(entry: AuditRow): TimelineDraft[] {
  const at = entry.createdAt.toISOString();
  const actorType = entry.actorType;
  const m = entry.metadata;
  const text = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
  switch (entry.action) {
    case "signature.created":
      return [{ at, kind: "created", actorType }];
    case "signature.opened":
      return [
        { at, kind: "opened", actorType, detail: typeof m.version === "number" ? `version ${m.version}` : undefined },
      ];
    case "signature.signed":
      // Several signers: whose signature (the role) and how.
      return [{ at, kind: "signed", actorType, detail: [text(m.role), text(m.method)].filter(Boolean).join(": ") }];
    case "signature.completed":
      return [{ at, kind: "sealed", actorType }];
    case "signature.seal_failed":
      return [{ at, kind: "seal_failed", actorType, detail: text(m.error) }];
    case "signature.seal_requeued":
      return [{ at, kind: "seal_again", actorType }];
    case "signature.retimestamped":
      return [{ at, kind: "retimestamped", actorType, detail: text(m.genTime) }];
    case "signature.declined":
      return [
        {
          at,
          kind: "declined",
          actorType,
          detail: text(m.role) ? [text(m.role), text(m.reason)].filter(Boolean).join(": ") : text(m.reason),
        },
      ];
    case "signature.expired":
      return [{ at, kind: "expired", actorType }];
    case "signature.assignment_updated": {
      const events: TimelineDraft[] = [];
      const visibility = fromTo(m.visibility);
      if (visibility && visibility.from !== visibility.to)
        events.push({
          at,
          kind: "visibility_changed",
          actorType,
          detail: `${String(visibility.from)} → ${String(visibility.to)}`,
        });
      const expiry = fromTo(m.expiresAt);
      if (expiry)
        events.push({ at, kind: "expiry_changed", actorType, detail: `${String(expiry.from)} → ${String(expiry.to)}` });
      if ("assignmentUrl" in m)
        events.push({
          at,
          kind: "link_replaced",
          actorType,
          detail: text(m.assignmentUrl) ?? "cleared: the signing link is used again",
        });
      return events;
    }
    case "signature.link_viewed":
      return [{ at, kind: "link_viewed", actorType }];
    case "signature.kiosk_started":
      return [{ at, kind: "kiosk_started", actorType, detail: text(m.startedBy) }];
    case "signature.reminder_sent":
      return [{ at, kind: "reminder_sent", actorType, detail: text(m.channel) }];
    case "signature.reminder_not_sent":
      return [{ at, kind: "reminder_not_sent", actorType, detail: text(m.reason) }];
    case "signature.staff_notified":
      return [{ at, kind: "staff_notified", actorType, detail: m.channel === "email" ? "email" : "no_channel" }];
    case "webhook.dispatched":
      return typeof m.deliveryId === "string"
        ? [{ at, kind: "webhook_delivery", actorType, detail: text(m.event), deliveryId: m.deliveryId }]
        : [];
    default:
      return [];
  }
}

/** The request's events, oldest first: its audit entries (by index) and its webhook deliveries as they stand now. */
async function timelineOf(ctx: OrgContext, row: SignatureRequestRow): Promise<SignatureTimelineEvent[]> {
  const entries = await ctx.scope
    .select(auditLog, sql`(${auditLog.metadata}->>'signatureId') = ${row.id}`)
    .orderBy(auditLog.seq);
  const drafts = entries.flatMap(eventsOfEntry);
  const deliveryIds = drafts.flatMap((d) => (d.deliveryId ? [d.deliveryId] : []));
  const deliveries = deliveryIds.length
    ? await ctx.scope.select(webhookDeliveries, inArray(webhookDeliveries.id, deliveryIds))
    : [];
  const attempts = deliveryIds.length
    ? await ctx.scope
        .select(webhookAttempts, inArray(webhookAttempts.deliveryId, deliveryIds))
        .orderBy(desc(webhookAttempts.attempt))
    : [];
  return drafts.map(({ deliveryId, ...event }) => {
    if (!deliveryId) return event;
    const delivery = deliveries.find((d) => d.id === deliveryId);
    if (!delivery) return event;
    const last = attempts.find((a) => a.deliveryId === deliveryId);
    return {
      ...event,
      detail: `${delivery.eventType}: ${delivery.status}${last?.statusCode ? ` (HTTP ${last.statusCode})` : ""}, ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`,
      delivery: {
        deliveryId,
        eventType: delivery.eventType,
        url: delivery.url,
        status: delivery.status,
        attempts: delivery.attempts,
        lastStatusCode: last?.statusCode ?? null,
      },
    };
  });
}

/**
 * Staff: one request with its timeline. The signing link stays out (see revealSigningLink), as do
 * the token's hash and the signer's network data.
 */
export async function getSignatureRequestDetail(
  ctx: OrgContext,
  input: { id: string },
): Promise<SignatureRequestDetail> {
  const row = await findSignatureRequest(ctx, input.id);
  const [doc] = await ctx.scope.select(documents, eq(documents.id, pinnedDocumentIdOf(row))).limit(1);
  // The list reads seal_failed_at; a seal job whose worker died on its last attempt is failed
  // without the handler having run, so the detail asks the job as well.
  const sealGaveUp =
    row.status === "sealing" && (row.sealFailedAt !== null || (await latestSealJob(ctx, row.id))?.status === "failed");
  const item = toListItem({
    ...row,
    documentName: doc?.name ?? "",
    documentVersion: row.pinnedVersion ?? doc?.currentVersion ?? 1,
  });
  return {
    ...item,
    status: sealGaveUp ? "failed" : item.status,
    assignmentUrl: row.assignmentUrl,
    declineReason: row.declineReason,
    sealError: row.sealError,
    signatureMethod: row.signatureMethod,
    canSealAgain: sealGaveUp,
    sealDelayed: row.status === "sealing" && !sealGaveUp && row.sealError !== null,
    sealLevel: row.sealLevel,
    timestampedAt: row.timestampedAt?.toISOString() ?? null,
    hasSignedPdf: row.status === "completed" && row.signedPdfKey !== null,
    timeline: await timelineOf(ctx, row),
    ...(await severalSigners(ctx, row)),
    ...(await documentLanguages(ctx, row)),
  };
}

/**
 * Issue 19: the language of the document the patient got (once pinned) and, for a request with
 * documents in several languages, each of them (the main one under `main`).
 */
async function documentLanguages(
  ctx: OrgContext,
  row: SignatureRequestRow,
): Promise<Pick<SignatureRequestDetail, "documentLanguage" | "documentsByLanguage">> {
  const pinned = row.pinnedVersion !== null ? await versionOf(ctx, row) : null;
  // In the languages' usual order (jsonb keeps its own key order).
  const map = row.documentsByLanguage ?? {};
  const byLanguage = patientLanguages.flatMap((language) =>
    map[language] ? [[language, map[language]] as const] : [],
  );
  if (byLanguage.length === 0) return { documentLanguage: pinned?.language ?? null };
  const ids = [row.documentId, ...byLanguage.map(([, id]) => id)];
  const names = new Map(
    (
      await ctx.scope
        .query({ id: documents.id, name: documents.name })
        .from(documents)
        .where(inArray(documents.id, ids))
    ).map((doc) => [doc.id, doc.name]),
  );
  return {
    documentLanguage: pinned?.language ?? null,
    documentsByLanguage: [
      { language: "main" as const, documentId: row.documentId, documentName: names.get(row.documentId) ?? "" },
      ...byLanguage.map(([language, id]) => ({ language, documentId: id, documentName: names.get(id) ?? "" })),
    ],
  };
}

/** Several signers: the order, every signer and who declined (nothing for a one-patient request). */
async function severalSigners(ctx: OrgContext, row: SignatureRequestRow) {
  const signers = await signersOf(ctx, row.id);
  if (signers.length === 0) return {};
  return {
    signingOrder: row.signingOrder,
    signers: await staffSignerItems(ctx, signers),
    declinedRole: row.declinedRole,
  };
}

/** Staff: a signer's own link (several signers), to hand over again; audited as `signature.link_viewed`. */
export async function revealSignerSigningLink(
  ctx: OrgContext,
  input: { id: string; signerId: string },
): Promise<RevealedSigningLink> {
  return inTransaction(ctx, async (tx) =>
    revealSignerLink(tx, await findSignatureRequest(tx, input.id), input.signerId),
  );
}

/**
 * Staff: the link the patient is given now (A2's rule: the caller's `assignmentUrl` when set,
 * else the /sign/<token> link), to copy or show as a QR code at the desk. The link is a bearer
 * credential: whoever holds it can open the patient's document and sign. Every role may fetch it,
 * because handing it over is the desk's work, but only through this call, and each call is an
 * audit entry `signature.link_viewed` naming the staff member (the request's timeline shows it).
 */
export async function revealSigningLink(ctx: OrgContext, input: { id: string }): Promise<RevealedSigningLink> {
  return inTransaction(ctx, async (tx) => {
    const row = await findSignatureRequest(tx, input.id);
    await recordAudit(tx, {
      action: "signature.link_viewed",
      metadata: { signatureId: row.id, replaced: row.assignmentUrl !== null },
    });
    return { signingUrl: row.assignmentUrl ?? signingLink(tx, tx.services.secrets.open(row.tokenEnc)) };
  });
}

/**
 * Staff: visibility, expiry and link of a request, through the same service as A7, then the
 * request as the detail shows it.
 */
export async function updateSignatureRequest(
  ctx: OrgContext,
  input: SignatureRequestChange,
): Promise<SignatureRequestDetail> {
  await changeSignatureRequest(ctx, input);
  return getSignatureRequestDetail(ctx, { id: input.id });
}
