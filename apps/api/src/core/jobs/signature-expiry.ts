import { and, eq, inArray, lte, signatureRequests, type SignatureRequestStatus } from "@clinsign/db";
import { inTransaction, nowOf, systemContext, type Services } from "../context";
import { OPEN_STATUSES } from "../signatures/request-read";
import { expireIfDue } from "../signatures/requests";

/**
 * The expiry sweep's one read across organizations (a system job, like the queue): open requests
 * past their expiry, at most `batchSize`. Each is then expired in its own organization's scope
 * (expireDueRequests below).
 */
export async function signatureRequestsDueForExpiry(
  services: Services,
  openStatuses: SignatureRequestStatus[],
  batchSize: number,
): Promise<{ id: string; organizationId: string }[]> {
  return services.db
    .select({ id: signatureRequests.id, organizationId: signatureRequests.organizationId })
    .from(signatureRequests)
    .where(and(inArray(signatureRequests.status, openStatuses), lte(signatureRequests.expiresAt, nowOf(services))))
    .limit(batchSize);
}

/**
 * The background half of expiry: marks open requests past their expiry as `expired` (with the
 * audit entry), so that happens even when nobody touches them. Reads and writes do not rely on
 * it (see expireIfDue). Returns how many were expired.
 */
export async function expireDueRequests(services: Services, batchSize = 200): Promise<number> {
  // Across organizations by design: a system sweep; each row is then handled in its own scope.
  const due = await signatureRequestsDueForExpiry(services, OPEN_STATUSES, batchSize);
  let expired = 0;
  for (const { id, organizationId } of due) {
    const ctx = systemContext(services, organizationId, "expiry-sweep");
    await inTransaction(ctx, async (tx) => {
      const [row] = await tx.scope.select(signatureRequests, eq(signatureRequests.id, id)).limit(1).for("update");
      if (row && (await expireIfDue(tx, row)).status === "expired" && row.status !== "expired") expired += 1;
    });
  }
  return expired;
}
