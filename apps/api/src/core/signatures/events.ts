import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { emitWebhookEvent } from "../webhooks/webhooks";

export type SignatureEvent = "signature.opened" | "signature.completed" | "signature.declined" | "signature.expired";

/** What else happens on a signature event, in the event's transaction. */
export type SignatureEventListener = (tx: OrgContext, event: SignatureEvent, signatureId: string) => Promise<void>;

const listeners = new Set<SignatureEventListener>();

/**
 * Adds a listener for every later event (once, however often it is added). The composition root
 * (services.ts) adds them, so that this file depends on none of its listeners (notices.ts).
 */
export function onSignatureEvent(listener: SignatureEventListener): void {
  listeners.add(listener);
}

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
  for (const listener of listeners) await listener(tx, event, metadata.signatureId);
}
