import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { emitWebhookEvent } from "../webhooks/webhooks";
import { queueSignatureNotice } from "./notices";

export type SignatureEvent = "signature.opened" | "signature.completed" | "signature.declined" | "signature.expired";

/**
 * A step of a signature process: its audit entry and its `signature.*` webhook (to the
 * organization's default URLs), both in the caller's transaction, so neither exists without the
 * change and the delivery is durable from the commit on.
 */
export async function recordSignatureEvent(
  tx: OrgContext,
  event: SignatureEvent,
  metadata: { signatureId: string; documentId: string } & Record<string, unknown>,
  webhookData: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(tx, { action: event, metadata });
  await emitWebhookEvent(tx, {
    event,
    templateIdentifier: null,
    data: { signature_id: metadata.signatureId, document_id: metadata.documentId, ...webhookData },
    auditMetadata: { signatureId: metadata.signatureId },
  });
  // Staff hear of a request that ended unsigned by e-mail too (the webhook above is the other half).
  if (event === "signature.expired" || event === "signature.declined")
    await queueSignatureNotice(tx, metadata.signatureId, event === "signature.expired" ? "expired" : "declined");
}
